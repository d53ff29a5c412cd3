"""The public API's surface against live TensorFlow: each expression is written once and
evaluated with `tf` bound to TensorFlow and to reftape; values, dtypes, shapes, reprs of shapes and
dtypes, returned structures and exception classes must agree."""

import functools
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from reftape.dispatch import runs_onednn
from reftape_properties.judge.compare import compare_values, harness_faults
from reftape_properties.conformance.snippet_outcomes import evaluate_expression, run_statements

EXPRESSIONS = [
 # means and sums of nothing and near overflow: a complex mean of nothing is 0; float16 rounds each addition
 "tf.reduce_mean(tf.zeros([2, 0], tf.complex64), axis=-1)", "tf.reduce_mean(tf.zeros([0], tf.complex128))",
 "tf.reduce_mean(tf.zeros([0, 2], tf.float32), axis=0)",
 "tf.reduce_sum(tf.constant([41833.0, 41833.0, -float('inf')], tf.float16))",
 "tf.reduce_mean(tf.constant([[-65504.0, 30000.0, 0.5]], tf.float16), axis=1)",
 "tf.constant([[1, 2], [3, 4]])", "tf.constant(1.5, shape=[2, 2])", "tf.constant([1.0, 2.0]).shape",
 "repr(tf.constant([1.0, 2.0]).shape)", "tf.constant([1.0, 2.0]).shape.as_list()", "len(tf.constant([1.0, 2.0]).shape)",
 "tf.constant([1.0, 2.0]).shape == (2,)", "tf.constant([[1.0]]).ndim", "abs(tf.constant(-2.0))", "float(tf.constant(2.5))",
 "np.asarray(tf.constant([1, 2]))", "tf.constant([1.0, 2.0])[tf.newaxis, ...]", "tf.constant([[1, 2], [3, 4]])[:, 1]",
 "tf.constant([[1, 2], [3, 4]])[1, ::-1]", "tf.constant([1.0, 2.0]) > 1.5", "tf.constant(7) // 2", "tf.constant(7) % 3",
 "tf.constant(-7.5) // 2.0", "tf.constant(-7.5) % 2.0", "tf.constant(2) ** 3", "tf.constant([1, 2]) / tf.constant([2, 4])",
 "tf.range(5)", "tf.range(1, 2, 0.25)", "tf.range(5, delta=-1)", "tf.range(5, 0, 1)", "tf.range(1.0, 2.0, 0.0)", "tf.range(5, 0, -2)", "tf.linspace(0.0, 1.0, 5)", "tf.eye(2, 3)", "tf.fill([2, 2], 7)", "tf.ones([2], tf.int32)",
 "tf.zeros_like(tf.constant([1.5]))", "tf.ones_like(tf.constant([1]), dtype=tf.float32)", "tf.cast(tf.constant([1.7, -1.7]), tf.int32)",
 "tf.cast(tf.constant([True, False]), tf.float32)", "tf.reduce_mean(tf.constant([1, 2]))", "tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=[0, 1])",
 "tf.math.reduce_std(tf.constant([1.0, 2.0, 4.0]))", "tf.concat([[1, 2], [3]], axis=0)", "tf.stack([1.0, 2.0])", "tf.unstack(tf.constant([[1, 2], [3, 4]]))",
 "tf.split(tf.constant([1, 2, 3, 4]), 2)", "tf.split(tf.constant([1, 2, 3, 4]), [1, -1])", "tf.tile([[1, 2]], [2, 1])", "tf.gather([[1, 2], [3, 4]], [1], axis=1)",
 "tf.where([True, False], [1, 2], [3, 4])", "tf.where(tf.constant([0, 1, 1]) > 0)", "tf.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0)",
 "tf.broadcast_to([1, 2], [2, 2])", "tf.squeeze(tf.zeros([1, 2, 1]))", "tf.expand_dims([1, 2], -1).shape", "tf.reshape(tf.range(6), [2, -1])",
 "tf.transpose(tf.reshape(tf.range(6), [2, 3]))", "tf.einsum('ij,jk->ik', tf.ones([2, 3]), tf.ones([3, 1]))", "tf.matmul([[1.0, 2.0]], [[3.0], [4.0]])",
 "tf.linalg.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])", "tf.nn.softmax([1.0, 2.0, 3.0])", "tf.nn.log_softmax([[1.0, 2.0]])",
 "tf.math.cumsum([1, 2, 3], exclusive=True)", "tf.math.cumprod([1.0, 2.0, 3.0], reverse=True)", "tf.math.reduce_logsumexp([1.0, 2.0])",
 "tf.nn.l2_loss(tf.constant([1.0, 2.0]))", "tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.5, -0.5])",
 "tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1.0, 2.0]])", "tf.math.round([0.5, 1.5, 2.5, -0.5])",
 "tf.math.sign([-2, 0, 3])", "tf.abs(tf.constant(3 + 4j))", "tf.math.xlogy(0.0, 0.0)", "tf.math.divide_no_nan(1.0, 0.0)",
 "tf.argmax([[1, 5], [7, 2]], axis=1)", "tf.maximum([1, 5], 3)", "tf.nn.relu6([-1.0, 3.0, 9.0])", "tf.nn.leaky_relu([-1.0, 1.0])",
 "tf.nn.elu([-1.0])", "tf.nn.selu([-1.0, 1.0])", "tf.nn.gelu([0.5])", "tf.nn.silu([0.5])", "tf.nn.softsign([2.0])",
 "tf.math.log_sigmoid([0.0])", "tf.math.erf([0.5])", "tf.dtypes.float32", "tf.float64.is_floating", "tf.int32.is_integer",
 "tf.complex64.is_complex", "tf.as_dtype('float16')", "tf.bfloat16.name", "tf.as_dtype(np.float64)", "tf.float32 == np.float32",
 "tf.UnconnectedGradients.ZERO", "tf.UnconnectedGradients('none')", "tf.Variable([1.0, 2.0])[0]", "tf.Variable(2.0) + 1",
 # subscripts as TF reads them: a list is a tuple of indices; bool first packs a bool index; a bool key masks
 *[f"tf.constant([[1.0, 2.0], [3.0, 4.0]])[{key}]" for key in (
     "[1, 0]", "[0]", "[[0]]", "[True, False]", "True, 0", "0, True", "True", "1.0", "np.float32(1.0)", "np.array(1)",
     "np.array([1])", "tf.constant(1.0)", "tf.constant(1, tf.uint8)", "tf.constant(1, tf.int16)", "'a'", "[None, 1]",
     "[slice(0, 1)]", "tf.constant([True, False])", "np.array([False, True])")],
 "tf.boolean_mask(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [[True, False], [False, True]])",
 "tf.boolean_mask(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [True, False], axis=1)",
 "tf.boolean_mask(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [True, False, True])", "tf.boolean_mask(tf.constant([1, 2]), [1, 0])",
 # a reduction over axes of one element in all is a copy in TF: signed zeros kept (two elements sum from +0)
 *[f"np.signbit({f}(tf.constant({x}), axis={axis}).numpy())" for f in ("tf.reduce_sum", "tf.reduce_mean", "tf.reduce_prod")
   for x, axis in (("[[-0.0, 1.0]]", 0), ("[[-0.0], [-0.0]]", -1), ("[-0.0]", None), ("[[-0.0, -0.0]]", 1))],
 # a Python float converted to float32 for want of another dtype must fit it; asked for or hinted, it overflows
 "tf.constant([1e40, 1.0])", "tf.constant(-3.5e38)", "tf.constant(3.4028235e38)", "tf.Variable(1e40)", "tf.fill([2], 1e40)",
 "tf.cast(1e40, tf.float32)", "tf.constant(1e40, dtype=tf.float32)", "tf.convert_to_tensor(1e40, dtype_hint=tf.float32)",
 "tf.multiply(1e40, tf.constant(2.0))", "tf.zeros([2]) + [1e40, 1.0]", "tf.constant(1e-50)",
 # the dtypes TF's kernels take: no bool Mul (`*` multiplies int32 casts), no 8- or 16-bit squared difference or einsum
 "tf.multiply(tf.constant([True, False]), tf.constant([True, True]))", "tf.constant([True, False]) * tf.constant([True, True])",
 "tf.math.squared_difference(tf.constant([1], tf.int8), tf.constant([3], tf.int8))",
 "tf.math.squared_difference(tf.constant([1], tf.int64), tf.constant([3], tf.int64))",
 "tf.einsum('i,i->i', tf.constant([1], tf.int16), tf.constant([3], tf.int16))", "tf.einsum('i,i->i', tf.constant([True]), tf.constant([True]))",
 "tf.einsum('i,i->i', tf.constant([1], tf.int32), tf.constant([3], tf.int32))",
 # matrix norms: the largest column (ord=1) or row (ord=inf) sum of magnitudes
 *[f"tf.norm(tf.constant([[3.0, -4.0], [1.0, 2.0]]), ord={o}, axis={a}, keepdims={k})"
   for o in ("1", "np.inf") for a in ("[0, 1]", "[1, 0]", "(-1, -2)") for k in (False, True)],
 # casts between float32, complex64 and bfloat16, between float64 and complex128, and bfloat16 to bool keep subnormals
 # (bits moved, rounded); TF's other float casts read them as zero
 *[f"[np.asarray(v).tolist() for v in tf.cast({x}, {b}).numpy().reshape(-1)]"
   for x in ("tf.constant([1e-39, -2e-39, 3.0])", "tf.cast(tf.constant([1e-39, -2e-39, 3.0]), tf.bfloat16)",
             "tf.constant([1e-310, -2e-39, 3.0], tf.float64)", "tf.complex(tf.constant([1e-39, 2.0]), tf.constant([-2e-39, 0.0]))",
             "tf.complex(tf.constant([1e-310, 2.0], tf.float64), tf.constant([-2e-39, 0.0], tf.float64))")
   for b in ("tf.bfloat16", "tf.float32", "tf.float64", "tf.float16", "tf.complex64", "tf.bool", "tf.int32")],
 # TF's Fill and Reshape kernels check their shapes
 "tf.zeros([-1])", "tf.ones([2, -3])", "tf.fill([2], tf.constant([1.0, 2.0]))", "tf.eye(2, -1)", "tf.linspace(0.0, 1.0, -1)",
 "tf.reshape(tf.constant([1.0, 2.0]), [-2])", "tf.reshape(tf.ones([4]), [-1, -1])", "tf.reshape(tf.ones([4]), [-1, 3])",
 "tf.reshape(tf.ones([2]), [-1, 0])", "tf.reshape(tf.constant([]), [-1, 0])", "tf.reshape(tf.zeros([0, 4]), [-1, 2, 0])",
 "tf.reshape(tf.zeros([2, 0, 3]), [-1, 0, 2])", "tf.reshape(tf.zeros([0]), [2, -1, 0])",
 "tf.Variable(2.0).assign_add(1.0).numpy()", "tf.Variable([1.0]).assign([[1.0]])", "tf.Variable([1.0, 2.0]).assign(3.0)",
 "tf.Variable([1.0, 2.0]).assign_add(3.0)", "tf.Variable([1.0]).assign_sub([1.0, 2.0])",
 "tf.tile(tf.constant([1.0, 2.0]), [2, 2])", "tf.tile(tf.constant([[1.0, 2.0]]), [2])", "tf.tile(tf.constant(1.0), [])",
 "tf.unstack(tf.constant([1.0, 2.0]), axis=1)", "tf.unstack(tf.constant([1.0, 2.0]), axis=-2)", "tf.unstack(tf.constant(1.0))",
 "tf.unstack(tf.constant([[1.0, 2.0]]), axis=-1)", "tf.stack([tf.constant([1.0]), tf.constant([2.0])], axis=2)",
 "tf.stack([tf.constant([1.0]), tf.constant([2.0])], axis=-3)", "tf.stack([tf.constant([1.0]), tf.constant([2.0])], axis=-2)",
 "tf.split(tf.constant([1.0, 2.0]), 2, axis=1)", "tf.split(tf.constant([1.0, 2.0]), [1, 1], axis=-2)", "tf.split(tf.constant(1.0), 1)",
 "tf.split(tf.constant([[1.0, 2.0]]), 2, axis=-1)", "tf.Variable([1, 2]).shape", "tf.Variable(3, name='q').name", "tf.Variable(1.0, trainable=False).trainable",
 "tf.identity(tf.Variable(2.0))", "tf.convert_to_tensor([1, 2], dtype=tf.int64)", "tf.convert_to_tensor(np.float64(1.5))",
 "tf.constant([1.0]) + np.float64(1.0)", "tf.constant(1) + 2.5", "tf.constant(1.0, tf.float64) * tf.constant(1.0)",
 "tf.math.add_n([[1, 2], [3, 4]])", "tf.math.squared_difference(3.0, 1.0)", "tf.math.floormod(-7, 3)", "tf.math.reciprocal(4.0)",
 "tf.norm([3.0, 4.0])", "tf.reduce_max(tf.constant([], tf.float32))", "tf.reduce_prod([])", "tf.constant([[1.0, 2.0]]) @ tf.constant([[1.0], [1.0]])",
 "-tf.constant([1, -2])", "~tf.constant([True, False])", "tf.constant([True]) & tf.constant([False])", "tf.constant(2.0) == 2.0",
 "tf.constant([1.0, 2.0]) == None", "list(tf.constant([1, 2]))", "tf.constant('abc')", "tf.is_tensor(tf.constant(1))", "tf.rank(tf.ones([2, 3]))",
 "tf.size(tf.ones([2, 3]))", "tf.shape(tf.ones([2, 3]))", "tf.math.is_finite([1.0, np.inf])", "tf.math.real(tf.constant(1 + 2j))",
 "tf.complex(1.0, 2.0)", "tf.math.imag(tf.constant([1 + 2j], tf.complex64))", "tf.math.conj(tf.constant(1 + 2j))",
 "tf.add_n([])", "tf.concat([], 0)", "tf.stack([])", "tf.stack((), axis=1)", "tf.stack([], axis=-1)",
 "tf.einsum('ij,jk->ik', tf.ones([2, 2]))", "tf.einsum('ij->ji', tf.ones([2, 2]), tf.ones([2, 2]))",
 "tf.split(tf.range(11), [1, 3])", "tf.split(tf.range(11), [-1, -1])", "tf.split(tf.range(11), [12, -1])",
 "tf.split(tf.range(11), [11, -1])",
 # how op arguments convert: strictly in generated op wrappers, with a dtype hint in add and the divisions
 "tf.math.equal(tf.constant(1), 2.5)", "tf.maximum(tf.constant([1]), 2.5)", "tf.maximum(1, tf.constant([2.5]))",
 "tf.concat([tf.constant([1]), [2.5]], 0)", "tf.where([True], tf.constant([1]), [2.5])", "tf.add(tf.constant([1]), 2.5)",
 "tf.divide(tf.constant([1]), 2.5)", "tf.divide(1, tf.constant([1.5]))", "tf.math.divide_no_nan(tf.constant([1, 2]), tf.constant([2, 0]))",
 "tf.math.divide_no_nan(tf.constant([1.0]), tf.constant([1.0], tf.float64))", "tf.convert_to_tensor(True, tf.float32)",
 "tf.convert_to_tensor([True, False], tf.int64)", "tf.convert_to_tensor(True, tf.int8)", "tf.convert_to_tensor(1, tf.bool)",
 "tf.bitwise.bitwise_and(tf.constant([12]), 10)", "tf.bitwise.bitwise_xor(tf.constant([12], tf.int64), 10)",
 "tf.bitwise.invert(tf.constant([5], tf.uint8))", "tf.bitwise.bitwise_or(tf.constant([1.0]), 2.0)",
 "tf.math.logical_xor([True, False], [True, True])",
 "tf.constant([], tf.int32)", "tf.constant([[]], tf.string)", "tf.constant([], tf.bool)", "tf.convert_to_tensor(300, tf.int8)",
 "tf.convert_to_tensor(-1, tf.uint8)", "tf.convert_to_tensor(2**40, tf.int32)", "tf.constant([1]) + 2**40",
 "tf.constant(np.array([b'a', b'b'], dtype=object))", "tf.constant(np.array([1.5], dtype=object))",
 "tf.convert_to_tensor(np.float64(2.5), tf.string)",
 "tf.constant(2**63)", "tf.constant(2**64)", "tf.constant(-2**63 - 1, tf.float32)", "tf.constant(2**63, tf.int64)",
 "tf.constant(1) + 2**63", "tf.constant(1.0) + 2**64", "tf.constant([1, 'a'])", "tf.constant([True, 1])",
 "tf.constant([True, 2], tf.int32)", "tf.constant([True, 2], tf.int8)", "tf.constant([[1], [2, 3]])",
 # kernels TF registers for some dtypes only
 "tf.ones([1, 1], tf.int8) @ tf.ones([1, 1], tf.int8)", "tf.ones([1, 1], tf.uint8) @ tf.ones([1, 1], tf.uint8)",
 "tf.ones([1, 1, 1], tf.int16) @ tf.ones([1, 1, 1], tf.int16)", "tf.ones([1, 1, 1], tf.int8) @ tf.ones([1, 1, 1], tf.int8)",
 "tf.constant(1 + 2j) // 2", "tf.abs(tf.constant([7], tf.uint8))", "tf.negative(tf.constant([7], tf.uint8))",
 "tf.round(tf.constant(1 + 2j, tf.complex64))", "tf.math.less(tf.constant(True), True)", "tf.math.greater(tf.constant('a'), 'b')",
 "tf.constant(True) * 2", "tf.constant([True]) * tf.constant([2])",
 # integer division by zero fails in FloorDiv and FloorMod (truediv divides floats); Pow has no uint8
 "tf.constant([1], tf.int32) // tf.constant([0], tf.int32)", "tf.constant([7, 1], tf.int64) // tf.constant([2, 0], tf.int64)",
 "tf.math.floordiv(tf.constant([1], tf.uint8), tf.constant([0], tf.uint8))", "tf.constant([1], tf.int32) % tf.constant([0], tf.int32)",
 "tf.math.floormod(tf.constant([5], tf.uint8), tf.constant([0], tf.uint8))", "tf.constant([1], tf.int32) / tf.constant([0], tf.int32)",
 "tf.constant(np.zeros([0], np.int32)) // tf.constant(np.zeros([0], np.int32))",
 "tf.pow(tf.constant([2, 3], tf.uint8), tf.constant([8, 2], tf.uint8))", "tf.constant([True]) / tf.constant([True])",
 # AddV2 concatenates strings
 "tf.add(tf.constant(['a']), tf.constant(['b']))", "tf.constant(['a', 'c']) + 'b'", "tf.constant(['a']) + tf.constant([1])",
 # the logical ops take NumPy values by their truth
 "tf.logical_not(np.float64(2.0))", "tf.logical_not(np.array([1, 2], np.int16))", "tf.logical_not(np.float32(0.0))",
 "tf.logical_not(np.array([0.5, np.nan, -0.0]))", "tf.logical_not(np.array(['a', '']))", "tf.logical_not(np.array([], np.float32))",
 "tf.logical_or(np.array([[1.5]], np.float16), np.array([0, 0], np.int64))", "tf.math.logical_xor(np.array([2.0]), np.array([0.0]))",
 # Cast to or from strings is unimplemented (silu casts beta to the features' dtype)
 "tf.cast(tf.constant(1.0), tf.string)", "tf.cast(tf.constant(['1']), tf.int32)", "tf.cast(tf.constant([True]), tf.string)",
 "tf.cast(tf.constant(['a']), tf.string)", "tf.nn.silu(tf.constant(['a']))", "tf.nn.silu(tf.constant(['a']), beta=2)",
 "tf.math.imag(tf.constant(['a']))",
 # as_dtype looks up TF's table: DataType numbers, float, bool and object, anything with a NumPy dtype
 "tf.as_dtype(3)", "tf.as_dtype(2.0)", "tf.as_dtype(True)", "tf.as_dtype(None)", "tf.as_dtype(int)", "tf.as_dtype(float)",
 "tf.as_dtype(complex)", "tf.as_dtype(object)", "tf.as_dtype(b'float32')", "tf.as_dtype(np.array([1.0]))",
 "tf.as_dtype(np.dtype('U3'))", "tf.as_dtype(np.int64)", "tf.float32 == 1", "tf.zeros([1], None)",
 # reduction axes: a Python float fails to convert, a list of floats in the op; NumPy floats and any rank pass
 "tf.reduce_sum(tf.ones([2, 3]), axis=1.0)", "tf.reduce_sum(tf.ones([2, 3]), axis=[1.0])", "tf.reduce_sum(tf.ones([2, 3]), axis=[[1]])",
 "tf.reduce_max(tf.ones([2, 3]), axis=np.array([[1, 0]]))", "tf.reduce_mean(tf.ones([2, 3]), axis=np.float32(1))",
 "tf.reduce_sum(tf.ones([2, 3]), axis=[])",
 # gather with batch_dims (axis defaults to batch_dims; an axis of 0 drops them), its checks in the kernel's order
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1, axis=2)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=-1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=-2)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1, axis=-1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2, 1], [1, 1, 0]], batch_dims=2)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [1], axis=0, batch_dims=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [0, 1], batch_dims=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1, axis=tf.constant(1))",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1.0, axis=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=2)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=3)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=-3)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1, axis=-3)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=1, axis=0)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0], [1], [2]], batch_dims=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0], [5]], batch_dims=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), 1, batch_dims=1)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [[0, 2], [1, 1]], batch_dims=True)",
 "tf.gather(tf.reshape(tf.range(24), [2, 3, 4]), [1], axis=1.0)",
 "tf.gather(tf.constant(1.0), 0)", "tf.gather(tf.zeros([0, 3]), tf.zeros([0, 2], tf.int32), batch_dims=1)",
 "tf.gather([['a', 'b'], ['c', 'd']], [[1], [0]], batch_dims=1)",
 # reduce_any and reduce_all take bools (NumPy values by their truth, Python lists as bools); truncatediv and
 # truncatemod round toward zero, fail on an integer zero divisor with InternalError, and exist at the top level only
 "tf.reduce_any(tf.constant([[True, False], [False, False]]), axis=1)", "tf.math.reduce_any(tf.constant([[True]]), axis=[0, 1])",
 "tf.reduce_all(tf.constant([[True, False], [True, True]]), axis=0, keepdims=True)", "tf.math.reduce_all(tf.constant(True))",
 "tf.reduce_any(tf.constant([], tf.bool))", "tf.reduce_all(tf.constant([], tf.bool))", "tf.reduce_any([True, False])",
 "tf.reduce_all([1, 0])", "tf.reduce_any(tf.constant([1.0]))", "tf.reduce_any(tf.constant([1]))", "tf.reduce_any(tf.constant(['a']))",
 "tf.reduce_all(tf.constant([True]), axis=1)", "tf.reduce_any(tf.constant([True]), axis=1.0)", "tf.reduce_any(np.array([1.0, 0.0]))",
 "tf.reduce_all(tf.constant([True, False]), axis=[])", "tf.reduce_any([[True]], axis=-1)",
 "tf.truncatediv(tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2]))",
 "tf.truncatemod(tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2]))",
 "tf.truncatediv(tf.constant([7.5, -7.5]), tf.constant([2.0, 2.0]))",
 "tf.truncatemod(tf.constant([7.5, -7.5, 7.5, -7.5]), tf.constant([2.0, 2.0, -2.0, -2.0]))",
 "tf.truncatediv(tf.constant([1], tf.int32), tf.constant([0], tf.int32))", "tf.truncatemod(tf.constant([1], tf.int64), tf.constant([0], tf.int64))",
 "tf.truncatediv(tf.constant([1], tf.uint8), tf.constant([0], tf.uint8))", "tf.truncatediv(tf.constant([7], tf.uint8), tf.constant([2], tf.uint8))",
 "tf.truncatediv(tf.constant([-7], tf.int8), tf.constant([2], tf.int8))", "tf.truncatediv(tf.constant([7], tf.int64), tf.constant([-2], tf.int64))",
 "tf.truncatemod(tf.constant([7], tf.int8), tf.constant([-2], tf.int8))", "tf.truncatemod(tf.constant([7.5], tf.bfloat16), tf.constant([2.0], tf.bfloat16))",
 "tf.truncatediv(tf.constant([7.5], tf.bfloat16), tf.constant([2.0], tf.bfloat16))",
 "tf.truncatediv(tf.constant([1.0, -1.0, 0.0], tf.float64), tf.constant([0.0, 0.0, 0.0], tf.float64))",
 "tf.truncatemod(tf.constant([1.0, 0.0]), tf.constant([0.0, 0.0]))", "tf.truncatediv(tf.constant([1+2j]), tf.constant([1+1j]))",
 "tf.truncatemod(tf.constant([1+2j]), tf.constant([1+1j]))", "tf.truncatediv(tf.constant([True]), tf.constant([True]))",
 "tf.truncatediv(tf.constant([7]), 2.5)", "tf.truncatediv(7, 2)", "tf.truncatemod(tf.constant([7.0]), 2)",
 "tf.truncatediv(tf.constant([[7], [8]]), tf.constant([2, 3]))",
 # multiply_no_nan: 0 wherever y is +-0 (x inf or NaN too), y converted to x's dtype, no integer kernel
 "tf.math.multiply_no_nan(tf.constant([np.inf, np.nan, 2.0, 1.0, -1.0]), tf.constant([0.0, -0.0, 3.0, np.nan, -0.0]))",
 "tf.math.multiply_no_nan(tf.constant([1, 2]), tf.constant([0, 3]))", "tf.math.multiply_no_nan(tf.constant([1.0]), 2)",
 "tf.math.multiply_no_nan(tf.constant([1.0]), tf.constant([2.0], tf.float64))", "tf.math.multiply_no_nan(2, tf.constant([1.0]))",
 "tf.math.multiply_no_nan([1.5, 2.0], [0.0, 2.0])", "tf.math.multiply_no_nan(tf.constant([1+2j, np.inf]), tf.constant([0j, 0j]))",
 "tf.math.multiply_no_nan(tf.ones([2, 0]), tf.ones([1]))",
 # realdiv: the RealDiv op itself (no integer kernel, operands converted strictly); xlog1py: 0 where x is 0 (y -1 or NaN
 # too), -0.0 kept in the vector loop only; left and right shifts clamp the shift to [0, bits - 1]
 "tf.realdiv(tf.constant([1, 2]), tf.constant([2, 0]))", "tf.realdiv(1, 2)", "tf.realdiv(tf.constant([1.0]), 2)",
 "tf.realdiv(2, tf.constant([1.0]))", "tf.realdiv(tf.constant([1.0]), tf.constant([1.0], tf.float64))",
 "tf.realdiv(tf.constant([7], tf.uint8), tf.constant([2], tf.uint8))", "tf.realdiv(tf.constant([7], tf.int64), tf.constant([2], tf.int64))",
 "tf.realdiv([1.5, 2.0], [0.0, 2.0])", "tf.realdiv(tf.constant([True]), tf.constant([True]))",
 "tf.realdiv(tf.constant([1.0], tf.float16), tf.constant([3.0], tf.float16))", "tf.realdiv(tf.constant(['a']), tf.constant(['b']))",
 "tf.realdiv(tf.ones([2, 0]), tf.ones([1]))", "tf.realdiv(tf.ones([2]), tf.ones([3]))",
 "tf.realdiv(tf.constant([3.5 + 0j] * 5, tf.complex64), tf.zeros([5], tf.complex64))",
 "tf.math.xlog1py(tf.constant([0.0, -0.0, 1.0, 2.0, 0.0, 3.0]), tf.constant([-1.0, 5.0, -1.0, np.inf, np.nan, -2.0]))",
 "tf.math.xlog1py(tf.constant([1, 2]), tf.constant([0, 3]))", "tf.math.xlog1py(tf.constant([1.0]), 2)", "tf.math.xlog1py(2, tf.constant([1.0]))",
 "tf.math.xlog1py(tf.constant([1.0]), tf.constant([2.0], tf.float64))", "tf.math.xlog1py([1.5, 0.0], [0.5, -1.0])",
 "tf.math.xlog1py(tf.constant([1.0], tf.bfloat16), tf.constant([2.0], tf.bfloat16))",
 "tf.math.xlog1py(tf.constant([1 + 2j, 0j]), tf.constant([0.5 + 1j, -1 + 0j]))", "tf.math.xlog1py(tf.constant([-0.0] * 9), 2.0)[8]",
 "tf.bitwise.left_shift(tf.constant([1, -1, 5, 7]), tf.constant([3, 31, 32, -1]))",
 "tf.bitwise.right_shift(tf.constant([-16, 16, -1, 7]), tf.constant([2, 40, 3, -2]))",
 "tf.bitwise.left_shift(tf.constant([200], tf.uint8), tf.constant([1], tf.uint8))", "tf.bitwise.right_shift(tf.constant([200], tf.uint8), tf.constant([9], tf.uint8))",
 "tf.bitwise.left_shift(tf.constant([1], tf.int8), tf.constant([7], tf.int8))", "tf.bitwise.left_shift(tf.constant([1], tf.int64), tf.constant([63], tf.int64))",
 "tf.bitwise.right_shift(tf.constant([-128], tf.int8), tf.constant([100], tf.int8))", "tf.bitwise.left_shift(tf.constant([3], tf.int16), 2)",
 "tf.bitwise.left_shift(tf.constant([1.0]), 2.0)", "tf.bitwise.left_shift(1, 2)", "tf.bitwise.right_shift([8, 9], [1, 2])",
 "tf.bitwise.left_shift(tf.constant([1]), tf.constant([1], tf.int64))", "tf.bitwise.left_shift(tf.constant([[1], [2]]), tf.constant([1, 2]))",
 "tf.bitwise.right_shift(tf.constant([True]), tf.constant([True]))",
 # IndexedSlices convert to dense tensors wherever a tensor is expected: Variable updates, conversions (a negative
 # index is dropped, no dense_shape or another dtype is a ValueError)
 "tf.Variable([1.0, 2.0, 3.0]).assign(tf.IndexedSlices(tf.constant([5.0, 6.0]), tf.constant([2, 2]), tf.constant([3]))).numpy()",
 "tf.Variable([[1.0], [2.0]]).assign_sub(tf.IndexedSlices(tf.constant([[5.0]]), tf.constant([1], tf.int64), tf.constant([2, 1], tf.int64))).numpy()",
 "tf.Variable([1.0, 2.0]).assign_add(tf.IndexedSlices(tf.constant([5.0]), tf.constant([0]))).numpy()",
 "tf.Variable([1.0, 2.0]).assign_add(tf.IndexedSlices(tf.constant([5.0], tf.float64), tf.constant([0]), tf.constant([2]))).numpy()",
 "tf.convert_to_tensor(tf.IndexedSlices(tf.constant([5.0, 6.0]), tf.constant([2, 2])))",
 "tf.convert_to_tensor(tf.IndexedSlices(tf.constant([5.0]), tf.constant([0]), tf.constant([2])), tf.float64)",
 "tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[5.0], [6.0]]), tf.constant([-1, 0]), tf.constant([3, 1])))",
 "tf.IndexedSlices(tf.constant([[5.0], [6.0]]), tf.constant([-1, 0]), tf.constant([3, 1])) * 2.0",
 "str(tf.IndexedSlices(tf.constant([5.0]), tf.constant([0])))", "str(tf.IndexedSlices(tf.constant([5.0]), tf.constant([0]), tf.constant([1])))",
 # embedding_lookup: a gather along axis 0 of one tensor (or a list of one), rows clipped to max_norm; ids converted first, so a float id fails in the op
 'tf.nn.embedding_lookup(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), [2, 0, 2])',
 'tf.nn.embedding_lookup(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), [[2, 0], [1, 1]])',
 'tf.nn.embedding_lookup([tf.constant([[1.0, 2.0], [3.0, 4.0]])], 1)',
 'tf.nn.embedding_lookup(tf.Variable([[1.0, 2.0], [3.0, 4.0]]), tf.constant([1, 0], tf.int64))',
 'tf.nn.embedding_lookup(tf.constant([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]]), [0, 1, 2], max_norm=1.0)',
 'tf.nn.embedding_lookup(tf.constant([[3.0, 4.0], [0.3, 0.4]]), [[0], [1]], max_norm=-1.0)',
 'tf.nn.embedding_lookup(tf.constant([3.0, -4.0]), [1, 0], max_norm=2.0)',
 'tf.nn.embedding_lookup(tf.constant([[3.0, 4.0], [0.3, 0.4]]), 0, max_norm=tf.constant(2.0))',
 'tf.nn.embedding_lookup(tf.constant([[1.0, 2.0]]), [1])',
 'tf.nn.embedding_lookup(tf.constant([[1.0, 2.0]]), [0.0])',
 'tf.nn.embedding_lookup(tf.constant([[1.0, 2.0]]), tf.constant([0], tf.uint8))',
 'tf.nn.embedding_lookup(tf.constant(1.0), [0])',
 'tf.nn.embedding_lookup([], [0])',
 'tf.nn.embedding_lookup(None, [0])',
 "tf.nn.embedding_lookup(tf.constant(['a', 'b']), [1])",
 # pad: CONSTANT (Pad, or PadV2 for a non-zero constant converted strictly), REFLECT and SYMMETRIC (MirrorPad, constant_values ignored); paddings and ranks checked in the kernels' order, an empty list of paddings converted to int32
 'tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1], [2, 2]])',
 "tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1], [2, 2]], mode='reflect')",
 "tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 2], [3, 0]], mode='SYMMETRIC')",
 "tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1], [2, 2]], mode='bad')",
 "tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1], [3, 3]], mode='REFLECT')",
 "tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1], [4, 3]], mode='SYMMETRIC')",
 'tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1]])',
 'tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1, 1], [-1, 0]])',
 'tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [1, 1])',
 'tf.pad(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), [[1.0, 1], [1, 0]])',
 'tf.pad(tf.constant([[1.0, 2.0]]), [[1, 1], [1, 0]], constant_values=7)',
 'tf.pad(tf.constant([[1.0, 2.0]]), [[1, 1], [1, 0]], constant_values=2.5)',
 'tf.pad(tf.constant([[1.0, 2.0]]), [[1, 1], [1, 0]], constant_values=tf.constant(7.0, tf.float64))',
 'tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=2.5)',
 'tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=[1, 2])',
 'tf.pad(tf.constant([1, 2], tf.int64), tf.constant([[0, 2]], tf.int64), constant_values=-3)',
 'tf.pad(tf.constant([True]), [[1, 0]])',
 "tf.pad(tf.constant(['a']), [[1, 1]])",
 "tf.pad(tf.constant(['a']), [[1, 1]], constant_values='z')",
 'tf.pad(tf.constant(3.0), [])',
 'tf.pad(tf.constant(3.0), tf.zeros([0, 2], tf.int32))',
 "tf.pad(tf.constant([1.0, 2.0], tf.bfloat16), [[1, 1]], mode='SYMMETRIC')",
 "tf.pad(tf.constant([1.0, 2.0]), [[1, 1]], mode='REFLECT', constant_values=5.0)",
 # bias_add: the bias along the last axis (N...C) or the second (NC...), converted with the value's dtype as a hint
 'tf.nn.bias_add(tf.ones([2, 3]), tf.constant([1.0, 2.0, 3.0]))',
 "tf.nn.bias_add(tf.ones([2, 3, 2]), tf.constant([1.0, 2.0, 3.0]), data_format='NCHW')",
 "tf.nn.bias_add(tf.ones([2, 3, 2]), tf.constant([1.0, 2.0, 3.0]), data_format='NC')",
 "tf.nn.bias_add(tf.ones([2, 3, 2]), tf.constant([1.0, 2.0, 3.0]), data_format='NHWC')",
 "tf.nn.bias_add(tf.ones([2, 3, 2]), tf.constant([1.0, 2.0, 3.0]), data_format='XY')",
 'tf.nn.bias_add(tf.ones([3]), tf.constant([1.0, 2.0, 3.0]))',
 'tf.nn.bias_add(tf.ones([2, 3]), tf.constant([[1.0, 2.0, 3.0]]))',
 'tf.nn.bias_add(tf.ones([2, 4]), tf.constant([1.0, 2.0, 3.0]))',
 'tf.nn.bias_add(tf.ones([2, 3]), [1, 2, 3])',
 'tf.nn.bias_add(tf.ones([2, 3]), tf.constant([1, 2, 3]))',
 'tf.nn.bias_add(tf.ones([2, 3], tf.int32), tf.constant([1, 2, 3]))',
 'tf.nn.bias_add(tf.ones([2, 3], tf.complex64), tf.constant([1, 2, 3], tf.complex64))',
 'tf.nn.bias_add([[1, 2, 3]], [1, 2, 3])',
 'tf.nn.bias_add(tf.ones([2, 3], tf.bool), tf.constant([True] * 3))',
 "tf.nn.bias_add(tf.ones([2, 3, 1, 1, 1, 1]), tf.constant([1.0, 2.0, 3.0]), data_format='NCHW')",
 "tf.nn.bias_add(tf.ones([2, 3, 2]), tf.constant([1.0, 2.0]), data_format='NCHW')",
 # one_hot: dtype from on_value, off_value or dtype (mismatches a TypeError), indices outside [0, depth) off everywhere
 'tf.one_hot([0, 2, -1, 5], 3)',
 'tf.one_hot([[0, 2]], 3, axis=0)',
 'tf.one_hot([[0, 2]], 3, axis=1)',
 'tf.one_hot([0, 2], 3, on_value=5, off_value=-1)',
 'tf.one_hot([0, 2], 3, on_value=5.0, off_value=-1)',
 'tf.one_hot([0, 2], 3, on_value=5, dtype=tf.float64)',
 'tf.one_hot([0, 2], 3, off_value=5, dtype=tf.float64)',
 'tf.one_hot([0, 2], 3, on_value=tf.constant(5.0), off_value=tf.constant(1.0, tf.float64))',
 'tf.one_hot([0, 2], 3, on_value=5.0, dtype=tf.int32)',
 'tf.one_hot([0.0, 2], 3)',
 'tf.one_hot([0, 2], -1)',
 'tf.one_hot([0, 2], 3, axis=-2)',
 'tf.one_hot([0, 2], 3, axis=2)',
 'tf.one_hot(tf.constant([0, 2], tf.uint8), 3)',
 'tf.one_hot(tf.constant([0, 2], tf.int64), 3, dtype=tf.bool)',
 'tf.one_hot([0, 2], 3, on_value=True, off_value=False)',
 'tf.one_hot([0, 2], 3, on_value=[1.0])',
 'tf.one_hot(1, 3)',
 'tf.one_hot([0, 2], 3.0)',
 'tf.one_hot([0, 2], tf.constant(3))',
 'tf.one_hot(tf.constant([0, 1], tf.int16), 2)',
 'tf.one_hot([1], 2, dtype=tf.bfloat16)',
 'tf.one_hot([1], 0)',
 "tf.one_hot([1], 2, on_value='a', off_value='b')",
 # segment sums: negative ids dropped (unsorted), ids sorted and non-negative (sorted), checks in the kernels' order
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, -1], 3)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, 3], 3)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0], 3)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [[0, 2, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]], 2)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [[0, 1, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]], 2)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, 1], -1)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, 1], 0)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0.0, 2, 0, 1], 3)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, 1], 3.0)',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, 1], [3])',
 'tf.math.unsorted_segment_sum(tf.reshape(tf.range(12.0), [4, 3]), tf.constant([0, 2, 0, 1], tf.int64), tf.constant(3, tf.int64))',
 'tf.math.unsorted_segment_sum([1, 2, 3, 4], [0, 2, 0, 1], 3)',
 'tf.math.unsorted_segment_sum(tf.constant(5.0), 0, 3)',
 'tf.math.unsorted_segment_sum(tf.constant([True]), [0], 1)',
 'tf.math.unsorted_segment_sum(tf.constant([1 + 2j, 3j]), [1, 1], 2)',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 0, 2, 2])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 2, 0, 2])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [-1, 0, 0, 2])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 5, 3, 3])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0, 0, 2])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [[0, 0, 2, 2]])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [1, 1, 1, 1])',
 'tf.math.segment_sum(tf.zeros([0, 3]), tf.zeros([0], tf.int32))',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), [0.0, 0, 2, 2])',
 'tf.math.segment_sum(tf.reshape(tf.range(12.0), [4, 3]), tf.constant([0, 0, 2, 2], tf.int16))',
 'tf.math.segment_sum(tf.constant(1.0), 0)',
 'tf.math.segment_sum(tf.constant([True]), [0])',
 'tf.math.segment_sum(tf.constant([1, 2, 3]), [0, 1, 1])',
 # sparse_softmax_cross_entropy_with_logits: ranks and shapes checked in Python (ValueError), labels in range in the kernel, float16 computed in float32
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits([2, 0], [[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[3, 0], logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 0], logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[2, 0]], logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0, 1], logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2.0, 0], logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=2, logits=tf.constant([1.0, 2.0, 3.0]))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[2, 0]], logits=tf.ones([1, 2, 3]))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=tf.constant([[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]], tf.float16))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=tf.constant([[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]], tf.bfloat16))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=tf.constant([[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]], tf.float64))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([2, 0], tf.int64), logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([2, 0], tf.uint8), logits=[[1.0, 2.0, 3.0], [1.0, -1.0, 0.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=[[1, 2, 3], [1, 2, 3]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([0], tf.int32), logits=tf.zeros([0, 3]))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 0], logits=tf.zeros([2, 0]))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=0, logits=tf.constant(1.0))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=[[1e30, -1e30]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=[[0.0, -np.inf], [np.inf, 1.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=[[np.nan, 1.0]])',
 # reverse: each axis once; a scalar comes back as it is whatever the axes (TF's kernel never looks at them)
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [1])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [-1, 0])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [0, 0])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [0, -2])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [2])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [-3])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), 1)',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), [1.0])',
 "tf.reverse(tf.constant(['a', 'b']), [0])",
 'tf.reverse(tf.constant(3.0), [])',
 'tf.reverse(tf.constant(3.0), [0])',
 'tf.reverse(tf.constant(3.0), [1])',
 'tf.reverse(tf.reshape(tf.range(6.0), [2, 3]), tf.constant([1], tf.int64))',
 'tf.reverse(tf.ones([1] * 9), [0])',
 'tf.reverse(tf.constant([[True, False]]), [[1]])',
 # the inverse functions at the top level (the catalog holds math.asin, ...): values, edges, dtypes TF refuses
 *[f"tf.{name}(tf.constant([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1e-39]))" for name in ("asin", "acos", "atanh", "acosh")],
 *[f"tf.{name}(tf.constant([0.5 + 0.5j, 2 + 0j, -2 + 0j], tf.complex64))" for name in ("asin", "acos", "atanh", "acosh")],
 *[f"tf.{name}(tf.constant([1, 2]))" for name in ("asin", "acos", "atanh", "acosh")],
 *[f"tf.math.{name}(tf.constant([0.25, 3.0], tf.{dtype}))" for name in ("asin", "acos", "atanh", "acosh")
   for dtype in ("float16", "bfloat16")],
 # slice: sizes of -1, index dtypes as TF converts them, range checks; top_k: ties and signed zeros in index
 # order, subnormals read as zero, k's checks, index types; sort and argsort as TF composes them
 'tf.slice(tf.reshape(tf.range(12), [3, 4]), [1, 0], [2, -1])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [1, 1], [0, 2])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), tf.constant([1, 0], tf.int64), [1, 2])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), tf.constant([1, 0], tf.int64), tf.constant([1, 2]))',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [1, 0], [3, 1])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [4, 0], [0, 1])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [-1, 0], [1, 1])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [1, 0], [-2, 1])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [1], [1])',
 'tf.slice(tf.reshape(tf.range(12.0), [3, 4]), [1.0, 0.0], [1, 1])',
 'tf.slice(tf.constant(3.0), [], [])',
 "tf.slice(tf.constant([['a', 'b'], ['c', 'd']]), [0, 1], [2, 1])",
 'tf.slice(tf.constant([1e-39, 2.0]), [0], [1])',
 'tf.math.top_k(tf.constant([3.0, 1.0, 3.0, -0.0, 0.0, np.inf, -np.inf, 1e-39, -1e-39, 2.0]), 10)',
 'tf.math.top_k(tf.constant([[3.0, 1.0, 3.0], [0.5, 2.0, 2.0]]), 2)',
 'tf.math.top_k(tf.constant([1.0, 5.0, 2.0, 5.0]), 1)',
 'tf.math.top_k(tf.constant([1.0, 5.0, 2.0, 5.0]), 4, sorted=False)',
 'tf.math.top_k(tf.constant([1.0, 5.0, 2.0, 5.0]), 1, sorted=False)',
 'tf.math.top_k(tf.constant([1.0, 5.0]), 3)',
 'tf.math.top_k(tf.constant([1.0, 5.0]), -1)',
 'tf.math.top_k(tf.constant([1.0, 5.0]), 0)',
 'tf.math.top_k(tf.constant(1.0), 1)',
 'tf.math.top_k(tf.constant([1 + 1j]), 1)',
 'tf.math.top_k(tf.constant([True]), 1)',
 'tf.math.top_k(tf.constant([1, 3, 255, 0], tf.uint8), 3)',
 'tf.math.top_k(tf.constant([1, -128, 127, 0], tf.int8), 4)',
 'tf.math.top_k(tf.constant([1, 3], tf.int64), 1, index_type=tf.int64)',
 'tf.math.top_k(tf.constant([1, 3], tf.float16), 1, index_type=tf.int16)',
 'tf.math.top_k(tf.constant([1, 3], tf.float16), 1, index_type=tf.float32)',
 'tf.math.top_k(tf.constant([2.5, 3.0, 2.5], tf.bfloat16), 2)',
 # NaNs and sorted=False as TF's kernel leaves them (reftape/kernels/ordering.py): k = 1 takes Eigen's vectorized maximum (NaNs
 # skipped in full packets of 8 float32 or 4 float64, taking over in the scalar remainder), k = n introsorts, other k a
 # bounded heap (its internal order when unsorted); sort and argsort follow through TF's composition
 *[f"tf.math.top_k(tf.constant({x}{d}), {k}{o})" for x in (
     "[1.0, np.nan, -np.inf, 0.0, -0.0, np.inf, np.nan, 2.0, -1.0]", "[np.inf, np.nan, -np.inf]", "[3.0, 1.0, np.nan]",
     "[-0.0, 0.0, np.nan]", "[np.nan, np.nan]", "[1.0] * 20 + [np.nan] + [5.0] * 3", "[1.0, 2.0, 3.0, 4.0, 5.0, np.nan, 7.0, 8.0, 9.0]",
     "[np.nan] + list(np.linspace(-3.0, 3.0, 40)) + [np.nan, 0.5] * 6", "[[np.nan, 1.0, 2.0, 0.5], [4.0, np.nan, -1.0, 4.0]]")
   for d in ("", ", tf.float64", ", tf.float16") for k in (1, 2, "tf.shape(tf.constant(" + x + "))[-1]") for o in ("", ", sorted=False")],
 *[f"tf.math.top_k(tf.constant({x}{d}), {k}, sorted=False)" for x in (
     "[5.0, 1.0, 4.0, 2.0, 8.0, 3.0, 7.0, 6.0, 0.0]", "[2, 0, -3, 0, 1, 9, 0, -5, -4, 0, 1, 0, 9, 0, 3, 1]",
     "[3.5, 0.0, -1.0, -4.0, np.inf, 3.5, np.inf, 0.0]", "list(np.sin(np.arange(50.0)))")
   for d in ("", ", tf.float64") for k in (2, 3, 5, 7)],
 "tf.math.top_k(tf.constant([[5, 1, 4, 2], [8, 3, 7, 6]], tf.int32), 3, sorted=False)",
 *[f"tf.{f}(tf.constant({x}){a})" for f in ("sort", "argsort") for x in (
     "[1.0, np.nan, -np.inf, 0.0, -0.0, np.inf, np.nan, 2.0, -1.0]", "[[np.nan, 1.0], [2.0, np.nan]]",
     "list(np.cos(np.arange(40.0))) + [np.nan] * 3") for a in ("", ", direction='DESCENDING'", ", axis=0")],
 # gather_nd with batch_dims: TF's composite (batch coordinates prefixed to each index row), its checks and its ops' own
 *[f"tf.gather_nd(tf.reshape(tf.range(24.0), [2, 3, 4]), {i}, batch_dims={b})" for i, b in (
     ("[[1], [0]]", 1), ("[[[1, 2]], [[0, 3]]]", 1), ("[[[1], [2]], [[0], [0]]]", 1), ("[[[1, 2], [0, 0]], [[2, 3], [1, 1]]]", 1),
     ("tf.constant([[1], [0]], tf.int64)", 1), ("tf.zeros([2, 0], tf.int32)", 1), ("[[[1], [2], [3]], [[0], [0], [0]]]", 2),
     ("[[[1], [2], [0]], [[3], [0], [1]]]", 2), ("[[1], [0]]", -1), ("[[1], [0]]", 1.0), ("[[1], [0]]", 2), ("[[1], [0], [2]]", 1),
     ("[[3], [0]]", 1), ("[[[1]], [[0]]]", 3), ("[[1], [0]]", "tf.constant(1)"), ("[[1.0], [0.0]]", 1))],
 "tf.gather_nd(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [1, 0], batch_dims=1)",
 'tf.math.top_k([1.0, 2.0], tf.constant(1, tf.int64))',
 'tf.math.top_k([1.0, 2.0], 1.0)',
 'tf.math.top_k([1.0, 2.0], [1])',
 'tf.math.top_k(tf.zeros([2, 0]), 0)',
 'tf.nn.top_k(tf.constant([[3.0, 1.0, 3.0]]), 2)',
 'tf.sort(tf.constant([3.0, 1.0, 3.0, -0.0, 0.0, np.inf, -np.inf, 1e-39, -1e-39, 2.0]))',
 'tf.argsort(tf.constant([3.0, 1.0, 3.0, -0.0, 0.0, np.inf, -np.inf, 1e-39, -1e-39, 2.0]))',
 "tf.sort(tf.constant([3.0, 1.0, 3.0, -0.0, 0.0, 2.0]), direction='DESCENDING')",
 "tf.argsort(tf.constant([3, 1, 3, 2]), direction='DESCENDING', stable=True)",
 'tf.sort(tf.constant([3, 1, 2, 255, 0], tf.uint8))',
 'tf.argsort(tf.constant([3, 1, 2, 255, 0], tf.uint8))',
 'tf.sort(tf.constant([3, -128, 127, -1], tf.int8))',
 'tf.sort(tf.constant([3, -2**63, 2**63 - 1, -1], tf.int64))',
 'tf.sort(tf.reshape(tf.range(24.0, 0.0, -1.0), [2, 3, 4]), axis=1)',
 'tf.argsort(tf.reshape(tf.range(24.0, 0.0, -1.0), [2, 3, 4]), axis=-3)',
 "tf.sort(tf.reshape(tf.range(24.0, 0.0, -1.0), [2, 3, 4]), axis=0, direction='DESCENDING')",
 'tf.sort(tf.constant([[3, 1], [0, 2]]), axis=2)',
 'tf.sort(tf.constant([[3, 1], [0, 2]]), axis=-3)',
 'tf.sort(tf.constant([[3, 1], [0, 2]]), axis=1.0)',
 'tf.sort(tf.constant(3.0))',
 "tf.sort(tf.constant([1.0]), direction='UP')",
 'tf.sort(tf.constant([1.0]), axis=[0])',
 'tf.sort(tf.constant([True, False]))',
 "tf.sort(tf.constant([True, False]), direction='DESCENDING')",
 "tf.sort(tf.constant(['b', 'a']))",
 'tf.sort(tf.constant([1 + 1j, 2j]))',
 'tf.sort(tf.zeros([2, 0]))',
 'tf.sort(tf.constant([2.0, 1.0], tf.float16))',
 # lgamma and digamma: poles, infinities, large and tiny values, subnormals (lgamma: glibc's reading; digamma: a
 # pole), the dtypes TF declares without a kernel (bfloat16) or refuses
 *[f"tf.math.{name}(tf.constant([0.0, -0.0, -1.0, -2.5, np.inf, -np.inf, np.nan, 1e-30, 1e30, -1e30, 0.5, 1e-39, -1e-39], tf.{dtype}))"
   for name in ("lgamma", "digamma") for dtype in ("float32", "float64")],
 *[f"tf.math.{name}(tf.constant([0.3, 2.5, -1.5], tf.{dtype}))" for name in ("lgamma", "digamma")
   for dtype in ("float16", "bfloat16", "complex64", "int32")],
 # gather_nd and the N-d scatters: index checks (InvalidArgumentError), index dtypes each op declares and
 # has kernels for, depth 0 (whole params), empty indices, integer, bool and string values, sums in the dtype
 'tf.gather_nd(tf.reshape(tf.range(12), [3, 4]), [[2, 1], [0, 3]])',
 'tf.gather_nd(tf.reshape(tf.range(12), [3, 4]), [[[1]], [[2]]])',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), [2, 1])',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), [[3, 1]])',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), [[-1, 1]])',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), [[1, 1, 1]])',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), tf.zeros([0, 2], tf.int32))',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), tf.zeros([2, 0], tf.int64))',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), [[1.0]])',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), tf.constant([[1]], tf.uint8))',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), tf.constant([[1]], tf.int16))',
 'tf.gather_nd(tf.reshape(tf.range(12.0), [3, 4]), 1)',
 'tf.gather_nd(tf.constant(3.0), tf.zeros([0], tf.int32))',
 'tf.gather_nd(tf.zeros([0, 3]), [[0]])',
 "tf.gather_nd(tf.constant([['a', 'b'], ['c', 'd']]), [[1, 0]])",
 'tf.gather_nd(tf.constant([[True, False]]), [[0, 1]])',
 'tf.scatter_nd([[1], [1], [3]], tf.constant([1.0, 2.0, 3.0]), [5])',
 'tf.scatter_nd([[1, 0], [1, 0]], tf.constant([1, 2]), tf.constant([2, 2]))',
 'tf.scatter_nd([[1], [5]], tf.constant([1.0, 2.0]), [5])',
 'tf.scatter_nd([[1], [-1]], tf.constant([1.0, 2.0]), [5])',
 'tf.scatter_nd([[1]], tf.constant(1.0), [5])',
 'tf.scatter_nd([[1]], tf.constant([1.0, 2.0]), [5])',
 'tf.scatter_nd([[1, 1, 1]], tf.constant([1.0]), [5])',
 'tf.scatter_nd([[1]], tf.constant([1.0]), [[5]])',
 'tf.scatter_nd([[1]], tf.constant([1.0]), [5.0])',
 'tf.scatter_nd([[1], [1]], tf.constant([True, False]), [3])',
 "tf.scatter_nd([[1], [1]], tf.constant(['a', 'b']), [3])",
 'tf.scatter_nd([[1], [1], [1]], tf.constant([2048.0, 1.0, 1.0], tf.float16), [3])',
 'tf.scatter_nd([[1], [1], [1]], tf.constant([256.0, 1.0, 1.0], tf.bfloat16), [3])',
 'tf.scatter_nd(tf.constant([[1]], tf.int16), [1.0], [3])',
 'tf.scatter_nd(tf.constant([[1]], tf.int64), [1.0], [3])',
 'tf.scatter_nd(tf.constant([[1]], tf.uint8), [1.0], [3])',
 'tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.zeros([0]), [3])',
 'tf.scatter_nd([[1], [3]], tf.constant([1e-39, 2.0]), [4])',
 'tf.tensor_scatter_nd_update(tf.zeros([5]), [[1], [1]], [1.0, 2.0])',
 'tf.tensor_scatter_nd_update(tf.zeros([5]), [[1], [7]], [1.0, 2.0])',
 'tf.tensor_scatter_nd_update(tf.zeros([5], tf.float64), [[1]], tf.constant([1.0]))',
 "tf.tensor_scatter_nd_update(tf.constant(['a', 'b']), [[1]], ['c'])",
 'tf.tensor_scatter_nd_update(tf.constant([1e-39, 1e-39, 1.0]), [[1]], [1e-39])',
 'tf.tensor_scatter_nd_update([1.0, 2.0], tf.constant([[1]], tf.int16), [1.0])',
 'tf.tensor_scatter_nd_update([1.0, 2.0], tf.constant([[1]], tf.uint8), [1.0])',
 'tf.tensor_scatter_nd_update(tf.reshape(tf.range(6), [2, 3]), [[1]], [[7, 8, 9]])',
 'tf.scatter_nd(tf.zeros([2, 0], tf.int32), tf.ones([2, 3]), [3])',
 'tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.ones([0, 3]), [0, 3])',
 'tf.scatter_nd([[0]], tf.ones([1, 0]), [2, 0])',
 'tf.tensor_scatter_nd_update(tf.ones([3, 0]), [[1]], tf.ones([1, 0]))',
 'tf.tensor_scatter_nd_update(tf.ones([]), [[1]], tf.ones([1]))',
 'tf.tensor_scatter_nd_add(tf.ones([3, 4]), tf.zeros([2, 0], tf.int32), tf.ones([2, 3, 4]))',
 'tf.tensor_scatter_nd_add(tf.zeros([5]), [[1], [1]], [1.0, 2.0])',
 'tf.tensor_scatter_nd_add(tf.zeros([5]), [[1], [7]], [1.0, 2.0])',
 'tf.tensor_scatter_nd_add(tf.constant([True]), [[0]], [True])',
 "tf.tensor_scatter_nd_add(tf.constant(['a']), [[0]], ['b'])",
 'tf.tensor_scatter_nd_add(tf.constant([2048.0, 0.0], tf.float16), [[0], [0]], tf.constant([1.0, 1.0], tf.float16))',
 'tf.tensor_scatter_nd_add(tf.constant([1e-39, 1e-39, 1.0, 1e-39]), [[1], [3]], [1e-39, 2.0])',
 'tf.tensor_scatter_nd_add([1.0, 2.0], tf.constant([[1]], tf.int16), [1.0])',
 'tf.tensor_scatter_nd_add([1.0, 2.0], tf.constant([[1]], tf.int64), [1.0])',
 'tf.tensor_scatter_nd_add(tf.reshape(tf.range(6), [2, 3]), [[1, 2], [0, 0]], [10, 20])',
 # nn.l2_normalize is math.l2_normalize
 'tf.nn.l2_normalize(tf.constant([[3.0, 4.0], [0.0, 0.0]]), axis=1)',
 'tf.nn.l2_normalize([3.0, 4.0], epsilon=100.0)',
 # sequences as TF's converter reads them: the first leaf picks the conversion (np.float64 and np.float16
 # their own dtype, a NumPy integer int32 as a Python one, a later float makes an integer conversion float32),
 # every other leaf must be one it takes (a Python bool is a number, np.bool_ only a bool) and fit
 *[f"tf.constant({value})" for value in (
     "[1.0, np.float64(2.0)]", "[np.float64(2.0), 1]", "[np.float32(2.0), 1.0]", "[np.float16(1.0), 0.1]",
     "[np.float32(1.0), np.float64(2.0)]", "[np.int64(2), 1]", "[np.int64(2**40), 1]", "[np.uint8(3), -1]",
     "[1, np.float16(2.5)]", "[np.int64(1), 2.5]", "[np.array([1, 2], np.int64), [3, 4]]", "[np.array([1.0], np.float32), [2.0]]",
     "[[1.0, 2.0], np.array([3.0, 4.0], np.float16)]", "[np.array(1.0), 2.0]", "[np.array([], np.float64)]",
     "[np.array([], np.int64), []]", "[np.float32(1e-40), 1.0]", "(np.float32(1.0), 2.0)", "[np.str_('a'), 'b']",
     "[1.0, True]", "[True, 1.0]", "[1, True]", "[[1], [True]]", "[1j, True]", "[1, 2.5, True]", "[True, np.bool_(False)]",
     "[np.bool_(True), 1]", "[1.0, np.bool_(True)]", "[np.float16(1.0), True]", "[np.complex64(1j), 1.0]",
     "[1.0, np.complex64(1j)]", "[1, 1j]", "[1.5, 2**63]", "[2**63, 1.5]", "[1, 2**63, 1.5]", "[1, 1.5, 2**63]",
     "[2**40, 1.5]", "[1.0, 2**200]", "[1, 1e40]", "[np.float32(1.0), 1e40]", "[np.float16(1.0), 65519.0]",
     "[np.float16(1.0), 65520.0]", "[np.float16(1.0), 70000]", "[1.0, [2.0]]", "[[1.0], 2.0]", "[None, 1.0]",
     "[1.0, None]", "[np.float64(1.0), np.array([2.0])]")],
 # a requested dtype TF has no direct conversion to (or whose conversion fails) infers the sequence's own first:
 # mixed types are refused there ([1.0, 0.5j] as complex64, not as complex128), then the cast is checked
 *[f"tf.constant({value}, {dtype})" for value in ("[1.0, 0.5j]", "[0.5j, 1.0]", "[[1.0], [0.5j]]", "[1, True]",
                                                  "[True, 1]", "[1.0, True]", "[0.5j, True]", "[2**40, 1]")
   for dtype in ("tf.complex64", "tf.complex128", "tf.float32", "tf.bfloat16", "tf.int8", "tf.bool")],
 "tf.Variable([1.0, 0.5j], dtype=tf.complex64)",
 "tf.constant([np.float64(1.5), 2], dtype=tf.int32)", "tf.constant([np.float16(1.0), 7e4], dtype=tf.float16)",
 "tf.constant([np.float32(1.0), 1e40], dtype=tf.float16)", "tf.convert_to_tensor([np.float16(1.0), 7e4], dtype_hint=tf.float16)",
 "tf.convert_to_tensor([np.float16(1.0), 7e4], dtype_hint=tf.float32)", "tf.add([1.0, 2.0], [np.float64(1.0), 2.0])",
 # lists holding tensors are packed (TF's autopacking): the first tensor's dtype, values converted to it
 *[f"tf.convert_to_tensor({value})" for value in (
     "[tf.constant(1.0), 2.0]", "[tf.constant(1.0), 2]", "[tf.constant(1), 2.5]", "[tf.Variable(1.0), np.float64(2.0)]",
     "[tf.constant(1.0), tf.constant(2.0, tf.float64)]", "[tf.constant(1.0), tf.constant(2.0, tf.float64), 3.0]",
     "[tf.constant([1.0]), [2.0]]", "[[1.0, 2.0], [tf.constant(3.0), 4.0]]", "[tf.constant(1.0), 'a']",
     "[tf.constant(1.0), 2.0], dtype=tf.float64", "[tf.constant(1.0), 2.0], dtype=tf.int32")],
 "tf.reduce_sum([tf.constant(1.0), np.float64(2.0)])", "tf.add([tf.constant(1.0), 2.0], 1.0)",
 # add_n and stack of one tensor or array: add_n sums its rows; stack converts it (axis 0) or packs its rows
 *[f"tf.add_n({v})" for v in ("tf.constant([[1.0, 2.0], [3.0, 4.0]])", "tf.constant([0.0])", "tf.zeros([0, 2])",
                               "tf.constant(1.0)", "tf.Variable([1.0, 2.0])", "np.array([[1, 2], [3, 4]])", "np.array([0.0])")],
 *[f"tf.stack({v})" for v in ("tf.constant([[1.0, 2.0]])", "tf.constant(1.0)", "tf.constant([1.0, 2.0]), axis=1",
                               "tf.constant([[1.0, 2.0]]), axis=1", "tf.Variable([[1.0, 2.0]]), axis=-1", "np.array([1.0, 2.0])",
                               "[1, 2.5]", "[tf.constant(1), 2.5]", "[tf.constant(1.0), 2.0], axis=-1", "[]", "[], axis=1",
                               "(tf.Variable(1.0), tf.Variable(2.0))", "[tf.constant(1.0), tf.constant(2.0, tf.float64)]",
                               "[[1.0], tf.constant([2.0])]", "[tf.constant([1.0]), tf.constant([2.0])], axis=2")],
 # tf.add and tf.truediv convert x alone and hint its dtype to y; add_n converts each input alone
 *[f"{f}({x}, {y})" for f in ("tf.add", "tf.truediv", "tf.math.add") for x, y in (
     ("2", "tf.constant(1.0)"), ("2.0", "tf.constant(1.0)"), ("2.0", "tf.constant(1.0, tf.float64)"), ("tf.constant(1.0)", "2"),
     ("tf.constant(1)", "2.5"), ("np.float64(2.0)", "tf.constant(1.0)"), ("[1.0]", "tf.constant(1.0, tf.float64)"),
     ("2.0", "tf.Variable(1.0)"), ("1", "2"))],
 # NumPy numbers are cast to a hinted dtype (as an operand of `+` is), strings keep theirs
 *[f"tf.convert_to_tensor({v}, dtype_hint=tf.{d})" for v, d in (
     ("np.float64(1.0)", "float32"), ("np.array([1.5])", "int32"), ("np.array([1, 2])", "float32"), ("np.array([1e300])", "float32"),
     ("np.array([True])", "float32"), ("np.array([1.5])", "float16"), ("np.array(['a'])", "float16"), ("np.array([-1])", "uint8"),
     ("np.array([300])", "int8"), ("np.array([1.0])", "string"))],
 *[f"tf.add_n({v})" for v in ("[tf.constant(1.0), 2]", "[2.0, tf.constant(1.0)]", "[np.float64(2.0), tf.constant(1.0)]",
                               "[tf.Variable(1.0), tf.constant(2.0)]", "[2.0, 3.0]")],
 # norm checks axis and ord in Python first: one int or None, or two distinct ints; a supported ord
 *[f"tf.norm(tf.ones([2, 3]), {args})" for args in (
     "axis=[0]", "axis=(0,)", "axis=[0, 0]", "axis=np.int64(0)", "axis=tf.constant(0)", "axis=True", "ord='fro'",
     "ord='fro', axis=(0, 1)", "ord=3, axis=(0, 1)", "ord=-1", "ord=0.5", "ord=1j", "axis=[-1, 0], keepdims=True")],
 "tf.argmax(tf.ones([2, 2]), tf.constant([[0, 1]]))",
 # MatMul's inner sizes must agree whatever the flags (over an inner size of 1, reftape's rank-1 product broadcast)
 *[f"tf.matmul(tf.ones([1, 4], tf.{d}), tf.ones([4, 2], tf.{d}), {flag}=True)" for d in ("float32", "float64", "complex64")
   for flag in ("transpose_a", "adjoint_a", "transpose_b")],
 # norm clipping as TF composes it: a negative bound counts as 0, a bound that broadcasts the values is refused, IndexedSlices
 # keep their indices, None entries stay None, a non-finite global norm makes every value NaN; TF 2 has no clip_by_average_norm
 "tf.clip_by_norm([3.0, 4.0], 2.0)", "tf.clip_by_norm([[3.0, 4.0], [0.3, 0.4]], 1.0, axes=[1])", "tf.clip_by_norm([3.0, 4.0], -1.0)",
 "tf.clip_by_norm([0.0, 0.0], 1.0)", "tf.clip_by_norm([3.0, 4.0], tf.constant([1.0, 2.0]))", "tf.clip_by_norm([3, 4], 1)",
 "tf.clip_by_norm(tf.constant([3.0, 4.0], tf.float64), tf.constant(-2.0))", "tf.clip_by_norm([3.0, 4.0], [[1.0], [2.0]])",
 "tf.clip_by_norm(tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([1]), tf.constant([2, 2])), 1.0)",
 "tf.clip_by_norm(tf.constant([1 + 1j]), 1.0)", "tf.clip_by_norm([np.inf, 1.0], 1.0)",
 "tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None, tf.constant([[12.0]])], 6.5)",
 "tf.clip_by_global_norm((tf.constant([3.0]), tf.constant([4.0], tf.float64)), 1.0)",
 "tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0, use_norm=tf.constant(10.0))",
 "tf.clip_by_global_norm([tf.constant([np.inf, 1.0]), tf.constant([2.0])], 1.0)", "tf.clip_by_global_norm([None], 1.0)",
 "tf.clip_by_global_norm([], 1.0)", "tf.clip_by_global_norm(3.0, 1.0)", "tf.clip_by_global_norm('ab', 1.0)",
 "tf.clip_by_global_norm([tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([1]), tf.constant([2, 2]))], 1.0)",
 "tf.clip_by_global_norm([tf.constant([3.0, 4.0])], tf.constant(1.0, tf.float64))", "tf.clip_by_global_norm([[3.0, 4.0]], 1.0)",
 "tf.linalg.global_norm([tf.constant([3.0]), None, tf.constant([4.0])])", "tf.linalg.global_norm([tf.constant([1 + 1j])])",
 "tf.linalg.global_norm([tf.constant([1.0]), tf.constant([2.0], tf.float64)])", "hasattr(tf, 'clip_by_average_norm')",
 # moments: float16 computed in float32, keepdims, axes squeezed (a shift is ignored); x must be a tensor (x.dtype read first)
 "tf.nn.moments(tf.constant([[1.0, 2.0], [3.0, 5.0]]), [0])", "tf.nn.moments(tf.constant([[1.0, 2.0], [3.0, 5.0]]), [0, 1], keepdims=True)",
 "tf.nn.moments(tf.constant([[60000.0, 60000.0]], tf.float16), [1])", "tf.nn.moments(tf.constant([[1.0, 2.0]], tf.bfloat16), [1], shift=3.0)",
 "tf.nn.moments(tf.constant([1, 2, 4]), [0])", "tf.nn.moments([1.0, 2.0], [0])", "tf.nn.moments(np.array([1.0, 2.0]), [0])",
 "tf.nn.moments(tf.constant([[1.0], [2.0]]), None)", "tf.nn.moments(tf.constant([[1.0, 2.0]]), [2])",
 "tf.nn.moments(tf.constant([1 + 2j, 3j]), [0])",
 # cumulative_logsumexp: Eigen's LogSumExp step from -inf, which keeps the accumulator against a NaN element
 *[f"tf.math.cumulative_logsumexp(tf.constant({x}{d}), exclusive={e}, reverse={r})"
   for x in ("[1.0, np.nan, 2.0]", "[np.nan, 1.0, 2.0]", "[-np.inf, -np.inf, 1.0]", "[1.0, np.inf, np.inf]", "[np.inf, 1.0, -np.inf]",
             "[-3.4e38, -3.4e38, 5.0]") for d in ("", ", tf.float64") for e in (False, True) for r in (False, True)],
 "tf.math.cumulative_logsumexp(tf.constant([[1.0, np.nan], [2.0, 3.0], [np.nan, -np.inf]]), axis=0)",
 "tf.math.cumulative_logsumexp(tf.constant([[1.0, np.nan, 2.0], [2.0, 3.0, np.nan]]), axis=1, reverse=True)",
 "tf.math.cumulative_logsumexp(tf.constant(np.linspace(-3.0, 3.0, 13), tf.float16))", "tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0], tf.bfloat16))",
 "tf.math.cumulative_logsumexp(tf.constant(2.0))", "tf.math.cumulative_logsumexp(tf.constant([1, 2]))", "tf.math.cumulative_logsumexp([1.0, 2.0], axis=1)",
 "tf.math.cumulative_logsumexp(tf.constant([1j]))", "tf.math.cumulative_logsumexp(tf.zeros([2, 0]), axis=1, exclusive=True)",
 # sequence_mask: Max, Range, Cast and Less in maxlen's dtype; a negative maxlen fails in Range
 "tf.sequence_mask([1, 3, 2], 5)", "tf.sequence_mask([[1, 3], [2, 0]])", "tf.sequence_mask([1, 3], 4, dtype=tf.float32)",
 "tf.sequence_mask(tf.constant([1, 3], tf.int64), 2)", "tf.sequence_mask([1.5, 2.0], 3.0)", "tf.sequence_mask([1, 2], tf.constant(3, tf.int64))",
 "tf.sequence_mask([1, 2], [3])", "tf.sequence_mask([1, 2], -1)", "tf.sequence_mask([-1, 2])", "tf.sequence_mask(tf.constant([], tf.int32))",
 "tf.sequence_mask(3, 4)", "tf.sequence_mask([1, 4], 2, dtype=tf.int32)", "tf.sequence_mask([1, 2], 3, dtype=None)",
 # meshgrid: 'xy' swaps the first two axes; the first argument's dtype for the ones (a mismatch fails in Mul)
 "tf.meshgrid([1, 2, 3], [4, 5])", "tf.meshgrid([1, 2, 3], [4, 5], indexing='ij')", "tf.meshgrid([1.0, 2.0], [3.0], [4.0, 5.0, 6.0])",
 "tf.meshgrid([1.0, 2.0], [3.0], [4.0, 5.0, 6.0], indexing='ij')", "tf.meshgrid([1.0, 2.0])", "tf.meshgrid()",
 "tf.meshgrid(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [5.0])", "tf.meshgrid([1.0, 2.0], [3, 4])", "tf.meshgrid([1, 2], indexing='xz')",
 "tf.meshgrid([1, 2], sparse=True)", "tf.meshgrid(tf.constant(2.0), [1.0, 3.0])", "tf.meshgrid([1.0, 2.0], tf.zeros([0]))",
 # tf.linalg as TF's Eigen kernels compute it: LU with partial pivoting (a zero pivot, not a NaN, makes inv and solve
 # fail; det is sign * exp(log |det|), the sign of a singular matrix a signed zero from the row swaps), Cholesky's failure
 # fills the lower triangle with NaN (zeros for complex; the upper triangle is left unset, so it is masked here)
 *[f"tf.linalg.{f}(tf.constant({m}))" for f in ("det", "slogdet", "inv", "logdet")
   for m in ("[[1.0, 2.0], [2.0, 4.0]]", "[[2.0, 4.0], [1.0, 2.0]]", "[[0.0, 1.0], [0.0, 2.0]]", "[[1.0, np.nan], [2.0, 4.0]]",
             "[[1.0, np.inf], [0.0, 1.0]]", "[[1e30, 0.0], [0.0, 1e30]]", "[[0.0, 1.0], [1.0, 0.0]]", "np.zeros([2, 0, 0])",
             "[[[2.0, 1.0], [1.0, 3.0]], [[0.0, 1.0], [1.0, 0.0]]]", "[[4.0, 100.0], [2.0, 5.0]]", "[[1.0, 2.0, 3.0]]", "[1.0, 2.0]",
             "[[1 + 1j, 2.0], [2 + 2j, 4.0]]", "[[3.0, 1j], [-1j, 2.0]]", "np.eye(3, dtype=np.float16)", "[[1, 2], [3, 4]]")],
 *[f"tf.linalg.band_part(tf.linalg.cholesky(tf.constant({m})), -1, 0)"
   for m in ("[[1.0, 2.0], [2.0, 1.0]]", "np.full([3, 3], 0.5)", "[[1.0, np.nan], [np.nan, 1.0]]", "[[1.0, np.nan], [0.5, 1.0]]",
             "[[[1.0, 2.0], [2.0, 1.0]], [[4.0, 0.0], [2.0, 5.0]]]", "[[4.0, 0.0, 0.0], [2.0, 5.0, 0.0], [1.0, 1.0, -9.0]]",
             "np.array([[-4.0, 0.0], [2.0, 5.0]], np.complex64)", "np.array([[4.0, 2 - 1j], [2 + 1j, 5.0]])", "np.zeros([0, 0])")],
 "tf.linalg.cholesky(tf.ones([2, 3]))", "tf.linalg.cholesky(tf.ones([2]))", "tf.linalg.cholesky(tf.eye(2, dtype=tf.float16))",
 "tf.linalg.cholesky(tf.eye(2, dtype=tf.bfloat16))", "tf.linalg.inv(tf.ones([2, 3]))", "tf.linalg.inv(tf.eye(2, dtype=tf.bfloat16))",
 "tf.linalg.inv(tf.constant([[1 + 1j, 2.0], [0.0, 1.0]]), adjoint=True)", "tf.linalg.det(tf.eye(2, dtype=tf.float16))",
 "tf.linalg.det([[1.0, 2.0], [3.0, 4.0]])",
 *[f"tf.linalg.solve(tf.constant({a}), tf.constant({b}){flag})" for a, b in (
     ("[[1.0, 2.0], [2.0, 4.0]]", "[[1.0], [1.0]]"), ("[[1.0, np.nan], [2.0, 4.0]]", "[[1.0], [1.0]]"),
     ("[[2.0, 1.0], [1.0, 3.0]]", "[[1.0, 2.0], [3.0, 4.0]]"), ("np.eye(2)", "np.ones([3, 1])"), ("np.eye(2)", "np.ones([2])"),
     ("np.ones([3, 2, 2]) + np.eye(2)", "np.ones([2, 1])"), ("np.ones([2, 3])", "np.ones([2, 1])"), ("np.zeros([0, 0])", "np.zeros([0, 3])"),
     ("[[1 + 2j, 1.0], [0.0, 1.0]]", "[[1.0], [1j]]")) for flag in ("", ", adjoint=True")],
 "tf.linalg.solve([[2.0, 1.0], [1.0, 3.0]], tf.constant([[1.0], [2.0]], tf.float64))",
 *[f"tf.linalg.triangular_solve(tf.constant({a}), tf.constant({b}){flags})" for a, b in (
     ("[[0.0, 0.0], [1.0, 1.0]]", "[[1.0], [1.0]]"), ("[[2.0, np.nan], [5.0, 4.0]]", "[[1.0], [2.0]]"),
     ("[[2.0, 1.0], [5.0, 4.0]]", "[[1.0, -1.0], [2.0, 0.5]]"), ("np.eye(2) + np.ones([3, 2, 2])", "[[1.0], [1.0]]"),
     ("[[2.0, 1.0], [5.0, 4.0]]", "np.ones([3, 2, 1])"), ("np.eye(2)", "np.ones([3, 1])"), ("np.ones([2, 2, 2])", "np.ones([3, 2, 1])"),
     ("[[1 + 1j, 2.0], [3j, 2.0]]", "[[1.0], [1j]]")) for flags in ("", ", lower=False", ", adjoint=True", ", lower=False, adjoint=True")],
 "tf.linalg.triangular_solve(tf.eye(2, dtype=tf.float16), tf.ones([2, 1], tf.float16))",
 # diagonals, bands, traces and transposes of (batches of) matrices, and their checks
 *[f"tf.linalg.diag_part(tf.reshape(tf.range(12.0), [3, 4]), k={k})" for k in (0, 1, -2, 3, -3, 4, (1, 1), "tf.constant(1)")],
 "tf.linalg.diag_part(tf.ones([3]))", "tf.linalg.diag_part(tf.reshape(tf.range(24), [2, 3, 4]))", "tf.linalg.diag_part(tf.zeros([2, 0]))",
 *[f"tf.linalg.diag([1.0, 2.0]{a})" for a in ("", ", k=1", ", k=-2", ", num_rows=3", ", num_cols=3", ", num_rows=3, num_cols=4",
                                               ", num_rows=1, num_cols=1", ", num_rows=3, padding_value=9", ", k=1, num_rows=2",
                                               ", padding_value=tf.constant(1.5)")],
 "tf.linalg.diag(1.0)", "tf.linalg.diag([[1, 2], [3, 4]])", "tf.linalg.diag(tf.zeros([0]))",
 *[f"tf.linalg.band_part(tf.reshape(tf.range(12.0), [3, 4]), {lo}, {up})" for lo, up in (
     (1, 0), (0, -1), (-1, 0), (0, 0), (-2, 1), (3, 4), (4, 0), (0, 5), ("tf.constant(1, tf.int64)", "tf.constant(0, tf.int64)"),
     (1.0, 0))],
 "tf.linalg.band_part(tf.ones([3]), 1, 0)", "tf.linalg.band_part(tf.ones([2, 2, 3], tf.complex64), 0, 1)",
 "tf.linalg.trace(tf.reshape(tf.range(12.0), [3, 4]))", "tf.linalg.trace(tf.ones([3]))", "tf.linalg.trace([[1, 2], [3, 4]])",
 "tf.linalg.trace(tf.ones([2, 0, 3]))", "tf.linalg.matrix_transpose(tf.ones([3]))",
 "tf.linalg.matrix_transpose(tf.constant([[1 + 2j, 3j]]), conjugate=True)", "tf.linalg.matrix_transpose(tf.reshape(tf.range(6), [1, 2, 3]))",
 "tf.linalg.adjoint(tf.constant([[1 + 2j, 3j]]))", "tf.linalg.adjoint([[1.0, 2.0]])",
 # polygamma and zeta (Eigen's Cephes series): NaN for orders that are not non-negative integers, poles, broadcasting
 "tf.math.polygamma([0.0, 1.0, 2.0, 1.5, -1.0, 3.0], [0.5, 2.0, 3.0, 2.0, 2.0, -1.5])", "tf.math.polygamma(1.0, [0.0, -2.0, 1e-3, 40.0])",
 "tf.math.polygamma(tf.constant([1.0, 2.0], tf.float64), tf.constant([[0.5], [4.0]], tf.float64))",
 "tf.math.polygamma(tf.constant(1.0, tf.float16), tf.constant(2.0, tf.float16))", "tf.math.polygamma(1, 2)",
 "tf.math.polygamma(tf.constant(1.0), tf.constant(2.0, tf.float64))", "tf.math.polygamma(1, tf.constant([2.0]))",
 "tf.math.zeta([2.0, 3.5, 1.0, 0.5, 2.0], [1.0, 2.0, 1.0, 1.0, -1.5])", "tf.math.zeta(2.0, [0.0, 1e-3, 50.0])",
 "tf.math.zeta(tf.constant([[2.0], [4.0]], tf.float64), tf.constant([0.5, 3.0], tf.float64))", "tf.math.zeta(2, 3)",
 # Special functions of issue 24: domains' ends and beyond, NaNs and infinities, dtypes TF refuses (float16 without
 # a kernel, complex and integers not allowed), mixed dtypes, broadcasting; nextafter into the subnormals TF flushes
 *[f"tf.math.{name}(tf.constant([0.0, 1.0, -1.0, 0.5, 2.0, -0.5, np.nan, 1e-30], tf.{dtype}))"
   for name in ("erfinv", "ndtri") for dtype in ("float32", "float64")],
 *[f"tf.math.{name}(tf.constant([0.5], tf.{dtype}))" for name in ("erfinv", "ndtri", "bessel_i0e", "bessel_i1")
   for dtype in ("float16", "bfloat16", "complex64", "int32")],
 *[f"tf.math.{name}(tf.constant([0.0, -0.0, 8.0, -8.0, 30.0, -700.0, 800.0, np.inf, -np.inf, np.nan, 1e-30], tf.{dtype}))"
   for name in ("bessel_i0e", "bessel_i1e", "bessel_i0", "bessel_i1") for dtype in ("float16", "float32", "float64")],
 *[f"tf.math.{name}([0.0, -1.0, 1.0, 0.5, 2.0, np.nan, 100.0, 1e-3, np.inf], [1.0, 1.0, 0.0, 0.0, np.inf, 1.0, 90.0, 5.0, 2.0])"
   for name in ("igamma", "igammac")],
 "tf.math.igamma(tf.constant([[0.5], [20.0]], tf.float64), tf.constant([0.1, 19.0, 30.0], tf.float64))",
 "tf.math.igamma(1, 2)", "tf.math.igamma(tf.constant(1.0), tf.constant(2.0, tf.float64))",
 "tf.math.igammac(tf.constant(1.0, tf.float16), tf.constant(2.0, tf.float16))",
 "tf.math.nextafter(tf.constant([0.0, 1.0, -0.0, 1.0, np.nan, np.inf]), tf.constant([1.0, 2.0, -1.0, 1.0, 1.0, 0.0]))",
 "tf.math.nextafter(tf.constant([0.0, 1.0], tf.float64), tf.constant([-1.0, 0.0], tf.float64))",
 "tf.math.nextafter(tf.constant(1.0, tf.float16), tf.constant(2.0, tf.float16))", "tf.math.nextafter(1, 2)",
 "tf.math.nextafter(1, 2.5)", "tf.math.nextafter(1.0, 2)", "tf.math.nextafter([1, 2], tf.constant(0.0))", "tf.math.nextafter(True, 2.0)",
 "tf.math.igammac(tf.constant(1.0, tf.bfloat16), tf.constant(2.0, tf.bfloat16))",
 "tf.math.lbeta([[1.0, 2.0], [0.0, 3.0]])", "tf.math.lbeta(tf.zeros([2, 0]))", "tf.math.lbeta(1.0)", "tf.math.lbeta([2, 3])",
 "tf.math.lbeta(tf.constant([[0.5, -1.5, 2.0]], tf.float64))", "tf.math.lbeta(tf.constant([1.0, 2.0], tf.bfloat16))",
 "tf.math.angle(tf.constant([1 + 1j, -1 + 0j, -1 - 0j, 0j, -0j, np.nan + 1j], tf.complex64))",
 "tf.math.angle(tf.constant([-2.0, 0.0, -0.0, np.nan], tf.float64))", "tf.math.angle(tf.constant([-1, 2]))",
 "tf.math.angle(tf.constant([-1.0, 2.0], tf.float16))",
 *[f"tf.math.special.{name}(tf.constant([0.0, -0.0, -1.0, 1e-30, 2.0, 8.0, 90.0, 750.0, np.inf, -np.inf, np.nan], tf.{dtype}))"
   for name in ("bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e") for dtype in ("float16", "float32", "float64")],
 *[f"tf.math.special.{name}(tf.constant([0.5], tf.{dtype}))" for name in ("bessel_k0", "bessel_k1e") for dtype in ("bfloat16", "complex64")],
 *[f"tf.math.special.{name}([0.5, 3.0])" for name in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e")],
 *[f"tf.math.special.{name}(tf.constant([0.0, -0.0, 0.5, 1.0, 1.5, 2.0, 3.25, 6.25, -7.0, 70.0, 1e9, 2e9, 36974.0, 40000.0, -1.0, "
   f"1e-30, 800.0, np.inf, -np.inf, np.nan], tf.{dtype}))"
   for name in ("dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence") for dtype in ("float32", "float64")],
 *[f"tf.math.special.{name}(tf.constant([0.5], tf.{dtype}))" for name in ("dawsn", "spence") for dtype in ("float16", "bfloat16", "complex64")],
 *[f"tf.math.special.{name}(tf.constant([0.0, -0.0, 1e-4, 2.0, -2.0, 5.0, -5.0, 30.0, 1e5, -1.0, 1e-30, np.inf, -np.inf, np.nan], "
   f"tf.{dtype}))" for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1") for dtype in ("float16", "float32", "float64")],
 # tf.signal's FFTs: ranks below the transform's, empty axes, dtypes, lengths of 1 and odd lengths
 "tf.signal.fft(tf.constant(1+0j))", "tf.signal.fft2d(tf.zeros([3], tf.complex64))", "tf.signal.fft(tf.zeros([2, 0], tf.complex64))",
 "tf.signal.ifft2d(tf.zeros([0, 2], tf.complex64))", "tf.signal.fft([1+1j, 2j])", "tf.signal.ifft(tf.constant([[1+2j], [3j]], tf.complex64))",
 "tf.signal.fft2d(tf.constant(np.arange(30.0).reshape(2, 3, 5) + 1j, tf.complex128))", "tf.signal.fft(tf.constant([np.inf + 0j, 1j]))",
 "tf.signal.fft(tf.constant([1.0, 2.0]))", "tf.signal.ifft2d(tf.constant(np.arange(28.0).reshape(4, 7) - 2j, tf.complex64))",
 # betainc: Eigen's float32 and float64 Cephes ports (a <= 1 transformed, the series, both continued fractions, a and b
 # swapped above the mean), domain ends and errors, the kernel's shape checks
 *[f"tf.math.betainc(tf.constant({a}, tf.{d}), tf.constant({b}, tf.{d}), tf.constant({x}, tf.{d}))" for d in ("float32", "float64")
   for a, b, x in (("[0.5, 2.0, 20.0, 0.1, 3.0, 50.0, 1.0]", "[0.5, 3.0, 15.0, 0.1, 40.0, 60.0, 1.0]", "[0.3, 0.9, 0.5, 0.99, 0.01, 0.45, 0.25]"),
                   ("[0.0, -1.0, 2.0, 2.0, 2.0, np.nan, 2.0]", "[1.0, 1.0, 0.0, 2.0, 2.0, 1.0, 2.0]", "[0.5, 0.5, 0.5, 1.5, -0.5, 0.5, np.nan]"),
                   ("[2.0, 2.0, 0.5]", "[3.0, 3.0, 0.5]", "[0.0, 1.0, 1e-30]"))],
 "tf.math.betainc([1.0, 2.0], [1.0, 2.0, 3.0], 0.5)", "tf.math.betainc([[1.0], [2.0]], [1.0, 2.0], 0.5)",
 "tf.math.betainc(1.0, [1.0, 2.0], [0.5, 0.25, 0.1])", "tf.math.betainc(1.0, [1.0, 2.0], 0.5)", "tf.math.betainc(1, 2, 0.5)",
 "tf.math.betainc(tf.constant(1.0, tf.float16), tf.constant(1.0, tf.float16), tf.constant(0.5, tf.float16))",
 "tf.math.betainc(tf.constant(1.0), tf.constant(1.0, tf.float64), 0.5)",
 # argument checks as TF's Python wrappers and op wrappers make them: einsum's keywords; squeeze's axis (a scalar made a list,
 # items read as int attributes, a tensor or array refused, a 0-d one failing to allocate); concat of one tensor; zeros_like's
 # and ones_like's dtype; unstack's num checked by the op
 # (none run for num=0); stack of a NumPy array of rank 2 or more along another axis; the cross entropy of rows of no classes
 "tf.einsum('ij->ji', tf.ones([2, 2]), foo=1)", "tf.einsum('ij->ji', tf.ones([2, 2]), foo=1, bar=2)", "tf.einsum('ij->ji', tf.ones([2, 2]), greedy=1)",
 "tf.einsum('ij->ji', tf.ones([2, 2]), name='x', optimize='greedy')",
 *[f"tf.squeeze(tf.ones([1, 2]), axis={a})" for a in (
     "tf.constant(0)", "tf.constant(1)", "tf.constant(0, tf.int64)", "np.array(0)", "tf.Variable(0)", "tf.constant([0])", "np.array([0])",
     "tf.constant([0, 1])", "(0,)", "[tf.constant(0)]", "[np.array(0)]", "0.0", "0.5", "[1.5]", "True", "np.float32(0.0)", "[tf.constant(0.0)]",
     "'a'", "[None]", "{0}", "[[0]]", "np.int32(0)")],
 "tf.concat(tf.constant([[1.0, 2.0], [3.0, 4.0]]), 0)", "tf.concat(tf.constant([[1.0, 2.0], [3.0, 4.0]]), 1)", "tf.concat(np.array([[1.0], [2.0]]), 0)",
 *[f"tf.{f}_like({x}, dtype={d})" for f in ("ones", "zeros") for x in ("tf.ones([2])", "[1.0, 2.0]")
   for d in ("3", "np.float64", "'float64'", "'foo'")],  # a tensor as the dtype: tests/suite/test_ops.py's EDGE_SNIPPETS
 *[f"tf.unstack(tf.ones([2, 3]), num={n}{a})" for n in ("True", "2.0", "2.5", "3", "np.int64(2)", "tf.constant(2)", "-1", "0", "'2'", "None")
   for a in ("", ", axis=1", ", axis=2", ", axis=-3")],
 "tf.unstack(tf.ones([0, 3]), num=0)", "tf.unstack(tf.ones([0, 3]), num=1)", "tf.unstack(tf.constant(1.0), num=1)", "tf.unstack(tf.constant(1.0), num=0)",
 "tf.unstack(tf.ones([2, 3]), num=2, axis=1.0)", "tf.unstack([[1.0, 2.0], [3.0, 4.0]], num=2)",
 *[f"tf.stack({v}, axis={a})" for v in ("np.ones([2, 3])", "np.ones([2, 2, 2])", "np.ones([2])", "np.ones([0, 2])", "tf.ones([2, 3])",
                                         "[np.ones(2), np.ones(2)]")
   for a in ("0", "1", "-1", "-2", "2", "tf.constant(0)", "tf.constant(1)")],
 *[f"tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros({s}), logits=tf.zeros({s}){a})" for s in ("[2, 0]", "[0, 3]", "[0]", "[2, 0, 3]")
   for a in ("", ", axis=0")],
 "tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 0.0], [0.5, 0.5]], logits=[[1.0, -1.0], [np.inf, 0.0]])",
 # axis arguments: a tensor must hold int32 or int64 (the op's Tidx/Tdim), a Python float is no int32,
 # NumPy numbers convert; argmax checks in Python (small integer tensors pass, NumPy values do not)
 *[f"{call.format(axis)}" for call in ("tf.reduce_sum(tf.ones([2, 2]), {})", "tf.math.cumsum(tf.ones([2, 2]), {})",
                                       "tf.expand_dims(tf.ones([2]), {})", "tf.concat([tf.ones([2]), tf.ones([2])], {})",
                                       "tf.argmax(tf.ones([2, 2]), {})")
   for axis in ("tf.constant(0.0)", "tf.constant([0.0])", "0.0", "np.float64(0.0)", "np.float32(0.0)", "np.int32(0)",
                "tf.constant(0, tf.int64)", "tf.constant(0, tf.int16)", "tf.constant(0, tf.uint8)", "tf.constant(False)",
                "tf.Variable(0.0)", "[0.0]", "[0]", "tf.constant([])")],
 # TF's eager fast path converts tensors, Variables, Python numbers and NumPy arrays with the dtype of
 # the first tensor or Variable; a list, tuple or NumPy scalar (not a Python number) among an op's inputs
 # sends it to the Python fallback, which converts in order: to the first tensor's dtype (not a
 # Variable's), or each to the first converted one's, a Variable of another dtype being its ValueError
 *[f"{f}({x}, {y})" for f in ("tf.math.multiply", "tf.math.pow", "tf.math.squared_difference", "tf.math.xlogy")
   for x, y in (("[2.0, 3.0]", "tf.Variable([1.5, 2.0], dtype=tf.float64)"), ("[2, 3]", "tf.Variable([1.5, 2.0])"),
                ("(2.0, 3.0)", "tf.Variable([1.5, 2.0], dtype=tf.float16)"), ("2.0", "tf.Variable([1.5, 2.0], dtype=tf.float16)"),
                ("np.float32(2.0)", "tf.Variable([1.5, 2.0], dtype=tf.float64)"), ("np.float64(2.0)", "tf.Variable([1.5, 2.0], dtype=tf.float16)"),
                ("np.int64(2)", "tf.Variable([1.5, 2.0])"), ("np.array([2.0, 1.0])", "tf.Variable([1.5, 2.0], dtype=tf.float16)"),
                ("[2.0, 3.0]", "tf.constant([1.5, 2.0], tf.float64)"), ("tf.Variable([1.5, 2.0], dtype=tf.float64)", "[2.0, 3.0]"),
                ("[1j, 2]", "tf.Variable([1.5, 2.0], dtype=tf.complex64)"), ("[tf.constant(1.5, tf.float16), 2.0]",
                                                                           "tf.Variable([1.5, 2.0])"))],
 "tf.concat([[2.0, 3.0], tf.Variable([1.5, 2.0], dtype=tf.float32), tf.constant([1.5], tf.float64)], 0)",
 "tf.concat([np.array([1.0]), [2.0, 3.0], tf.Variable([1.5, 2.0], dtype=tf.float64)], 0)",
 "tf.concat([[2.0], tf.Variable([1.5, 2.0], dtype=tf.float64)], 0)", "tf.concat([[], tf.Variable([1.5])], 0)",
 "tf.where([True, False], [2.0, 3.0], tf.Variable([1.5, 2.0], dtype=tf.float64))",
 "tf.tensor_scatter_nd_add(np.ones([2, 2], np.float32), [[0]], tf.Variable([[1.5, 2.0]], dtype=tf.float64))",
 "tf.tensor_scatter_nd_update(np.ones([2, 2]), [[0]], tf.Variable([[1.5, 2.0]], dtype=tf.float16))",
 "tf.convert_to_tensor(tf.Variable([1.5, 2.0]), dtype=tf.float64)",
 # matmul converts a alone and hints its dtype to b; matvec converts each alone; bias_add goes straight
 # to its op; the cross entropies convert each alone (softmax's labels then cast to the logits' dtype);
 # einsum reads each operand's shape first
 *[f"tf.linalg.{f}({x}, {y})" for f in ("matmul", "matvec") for x, y in (
     ("[[1.0, 2.0], [3.0, 4.0]]", "tf.Variable([[1.5, 2.0], [1.0, 1.0]], dtype=tf.float64)"),
     ("[[1, 2], [3, 4]]", "tf.constant([[1.5, 2.0], [1.0, 1.0]], tf.float64)"),
     ("tf.constant([[1.5, 2.0], [1.0, 1.0]], tf.float64)", "[[1.0, 2.0], [3.0, 4.0]]"),
     ("tf.constant([[1.5, 2.0], [1.0, 1.0]], tf.float16)", "np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)"),
     ("tf.constant([[1.5, 2.0], [1.0, 1.0]], tf.float16)", "[1.0, 2.0]"))],
 *[f"tf.nn.bias_add({x}, {y})" for x, y in (("[[1.0, 2.0]]", "tf.Variable([1.5, 2.0], dtype=tf.float64)"),
                                            ("np.ones([1, 2], np.int64)", "tf.Variable([1.5, 2.0], dtype=tf.float64)"),
                                            ("tf.ones([1, 2], tf.float16)", "np.array([1.5, 2.0])"))],
 *[f"tf.nn.{f}_cross_entropy_with_logits(labels={x}, logits={y})" for f in ("sigmoid", "softmax") for x, y in (
     ("[[0.25, 0.75]]", "tf.Variable([[1.5, 2.0]], dtype=tf.float64)"), ("tf.constant([[0.25, 0.75]], tf.float64)", "[[1.5, 2.0]]"),
     ("tf.constant([[0.25, 0.75]], tf.float64)", "tf.constant([[1.5, 2.0]], tf.float16)"), ("[[0, 1]]", "[[1.5, 2.0]]"))],
 *[f"tf.einsum('ij,jk->ik', {x}, {y})" for x, y in (("[[1.0, 2.0]]", "tf.ones([2, 1])"), ("tf.ones([1, 2])", "[[1.0], [2.0]]"),
                                                    ("np.ones([1, 2], np.float32)", "tf.ones([2, 1])"), ("2.0", "tf.ones([2, 1])"))],
 # what an assign returns: an UnreadVariable that reads the variable's current value, or None without read_value
 "(lambda v: (v.assign(2.0), v.assign_add(1.0, read_value=False), v.assign_sub(0.5), v.assign(0.0, read_value=False), v))"
 "(tf.Variable(1.0, trainable=False))",
 "(lambda v: (v.assign(2.0).name, repr(v.assign_add([1.0])), v.assign(3.0).assign_add(1.0), v))(tf.Variable([1.0], name='w'))",
 "(lambda v: (lambda u: (v.assign(5.0), u.numpy(), u.read_value(), u is v, u.ref() == v.ref()))(v.assign(2.0)))(tf.Variable(1.0))",
 # the logical reductions and ops read a Variable (the kernel refuses another dtype); a list or NumPy scalar
 # argument sends them to TF's fallback, whose conversion to bool refuses it first
 *[f"tf.{f}" for f in ("reduce_any(tf.Variable([True, False]))", "reduce_all(tf.Variable([True, False]), axis=[0])",
                       "reduce_all(tf.Variable(2.0))", "reduce_all(tf.Variable(2.0), axis=[0])", "reduce_any(tf.constant(2.0), axis=[])",
                       "reduce_all(tf.Variable([2.0]), axis=np.int32(0))", "reduce_any(tf.Variable([2.0]), axis=0)",
                       "logical_and(tf.Variable(2.0), [True])", "logical_or(tf.Variable(False), tf.constant(True))",
                       "logical_and(tf.Variable(2.0), tf.constant(True))", "math.logical_xor(tf.Variable([True]), [True])")],
 # == and != check the dtypes before the shapes (which, not broadcasting, make them simply unequal)
 "tf.ones([2]) == tf.ones([3], tf.int32)", "tf.ones([2]) != tf.ones([3], tf.int32)", "tf.Variable([1.0, 2.0]) == tf.ones([3], tf.int32)",
 "tf.ones([2]) != tf.ones([3])",
 # an op's dtype must be allowed and have a kernel before inputs of mixed dtypes or shapes are looked at
 "tf.constant([1 + 1j]) // tf.constant([1.0])", "tf.constant([1 + 1j], tf.complex64) // tf.constant([1], tf.int64)",
 "tf.constant([3, 250], tf.uint8) @ tf.constant([3, 250], tf.uint8)", "tf.matmul(2, tf.constant([3, 250], tf.uint8))",
 "tf.constant([True]) - tf.constant([1.0])",
 # zeros' and ones' shapes convert to int32 unless tensors; Fill, Reshape, Tile and BroadcastTo check their
 # shape input's dtype (int32 or int64) and rank; fill takes no dtype; eye takes ints and tensors only
 *[f"tf.{f}" for f in ("zeros([1.0, 2.0])", "ones(0.5)", "zeros(tf.constant([2.0]))", "ones(tf.constant(2.5))",
                       "zeros(tf.constant([2], tf.int16))", "zeros([[1, 2], [3, 4]])", "zeros(tf.Variable(2.0))",
                       "ones(tf.constant([True, False]))", "zeros((2, 3), dtype=tf.string)",
                       "ones([2], dtype=tf.string)", "zeros(tf.constant(2))", "zeros([np.int64(2), tf.constant(3)])",
                       "fill([2.0], 1.0)", "fill([[2]], 1.0)", "fill(2, 1.0)",
                       "tile([1, 2], [2.0])", "tile([1, 2], 2)", "tile([1, 2], np.int32(2))", "broadcast_to(1.0, [2.0])",
                       "broadcast_to(1.0, 2)", "broadcast_to(1.0, [[2]])", "reshape([1, 2], [2.0])", "reshape([1, 2], [[2]])",
                       "eye(2.0)", "eye(np.float32(2.0))", "eye(2, 3.0)", "eye([2])", "eye(True)", "eye(2, True)",
                       "eye(tf.constant(2.0))", "eye(tf.Variable(2))", "eye(np.int64(2), np.int32(3))")],
 # ArgMax takes 16-bit index types, ArgMin only int32 and int64; tf.constant copies a tensor, never casts it;
 # squeeze's empty axis list squeezes every axis of size 1; where of one scalar is refused by the kernel
 *[f"tf.{f}" for f in ("argmax([1.0, 2.0], output_type=tf.int16)", "argmin([1.0, 2.0], output_type=tf.int16)",
                       "argmax([1.0, 2.0], output_type=tf.float32)", "argmin([[1.0, 2.0]], 1, output_type=tf.uint8)",
                       "constant(tf.constant([3, 1], tf.int64), dtype=tf.float32)", "constant(tf.constant([3, 1]), tf.int32)",
                       "constant(tf.constant([1.5], tf.bfloat16), np.float64)", "squeeze([[1]], axis=[])",
                       "squeeze(tf.zeros([1, 2, 1]), axis=())", "where(2)", "where(tf.constant(0.0))", "where([[1.0, 0.0]])")],
 # AssignAdd and AssignSub have kernels for numbers only
 "tf.Variable(True).assign_add(True)", "tf.Variable(['a']).assign_sub(['b'], read_value=False)",
 "tf.Variable([1], dtype=tf.uint8).assign_add([2])", "tf.Variable([1.0], dtype=tf.bfloat16).assign_sub([2.0])", # TF's reduction kernels refuse an axis named twice (after checking the ranges), a copy over one element too;
 # Squeeze squeezes an axis named twice once
 *[f"tf.{f}" for f in ("reduce_max([0], axis=[0, -1])", "reduce_sum([0], axis=[0, 0])", "reduce_min([[1, 2]], axis=[1, -1])",
                       "reduce_mean([[1.0, 2.0]], axis=[-2, 0])", "reduce_prod([[1.0]], axis=[1, 1])",
                       "reduce_any([[True]], axis=[1, 1])", "reduce_all([[True]], axis=[1, 1], keepdims=True)",
                       "reduce_logsumexp([[1.0, 2.0]], axis=[1, 1])", "math.reduce_euclidean_norm([[1.0]], axis=[1, -1])",
                       "reduce_max([[1, 2]], axis=[0, 0, 5])", "reduce_sum([[1.0, 2.0]], axis=tf.constant([1, 1]))",
                       "squeeze([[1]], axis=[0, 0])", "squeeze([[[1]]], axis=[0, 2, -1])", "squeeze([[1, 2]], axis=[0, 0, 1])")],
 # range converts what is no tensor to its dtype, infers the widest of int32 < int64 < float16 < bfloat16 <
 # float32 < float64 (another is TF's AssertionError), casts all three, and its kernel takes a vector of one
 # element; linspace converts stop to start's dtype and num to an integer tensor, and composes as TF does
 *[f"tf.{f}" for f in ("range(3, dtype=tf.bool)", "range(0, 1, 0.3, dtype=tf.int32)", "range(tf.constant([1.0, 2.0]))",
                       "range(tf.constant([3]))", "range(tf.constant([[3]]))", "range(tf.constant(3, tf.int8))",
                       "range(tf.constant(True))", "range(3, dtype=tf.int8)", "range(3, dtype=tf.uint8)",
                       "range(3, dtype=tf.complex64)", "range(3.5, dtype=tf.int32)", "range(tf.constant(3.5), dtype=tf.int32)",
                       "range(tf.Variable(3.5), dtype=tf.int32)", "range(np.float16(3))", "range(np.int8(3))",
                       "range(tf.constant(3.0, tf.float16))", "range(3, dtype=tf.string)",
                       "linspace(0.0, 1.0, 2.0)", "linspace(0.0, 1.0, tf.constant(3, tf.int64))", "linspace(0, 1.5, 4)",
                       "linspace(tf.constant(0.1, tf.float64), 0.7, 7)", "linspace([0.0, 1.0], 5.0, 3, axis=2)",
                       "linspace([0.0, 1.0], [5.0, 1.0, 2.0], 3)", "linspace(0.0, 1.0, [2, 3])", "linspace(0.0, 1.0, [[2]])",
                       "linspace(tf.constant(0.0), tf.constant(1.0, tf.float64), 3)",
                       "linspace(tf.constant([1.5, -2.0, 0.5]), tf.constant([1.5, -2.0, 0.5]), [0])",
                       "linspace(tf.constant([1.5, -2.0, 0.5]), tf.constant([1.5, -2.0, 0.5]), [4])", "linspace(True, False, 3)",
                       "linspace(tf.constant(1 + 1j), 2.0, 3)", "linspace(0.0, tf.Variable(1.0, dtype=tf.float64), 3)",
                       "linspace([0.0, 1.0], [[5.0], [6.0]], 3, axis=-1)")], # split: a Python or NumPy integer is Split's count; anything else converts to SplitV's sizes, which may not be
 # of rank 0 (TF's ValueError) and must be int8, int32 or int64, as many as the outputs; the axis is an int32 input
 'tf.split([1, 2, 3, 4], 2.0)', 'tf.split([1, 2, 3, 4], tf.constant(2))', 'tf.split([1, 2, 3, 4], [1.0, 3.0])',
 'tf.split([1, 2, 3, 4], np.int32(2))', 'tf.split([1, 2, 3, 4], np.float32(2))', 'tf.split([1, 2, 3, 4], np.array(2))',
 'tf.split([1, 2, 3, 4], tf.constant([1, 3]))', 'tf.split([1, 2, 3, 4], tf.constant([1, 3], tf.int64))',
 'tf.split([1, 2, 3, 4], tf.constant([1, 3], tf.int8))', 'tf.split([1, 2, 3, 4], tf.constant([1, 3], tf.int16))',
 'tf.split([1, 2, 3, 4], tf.constant([1.0, 3.0]))', 'tf.split([1, 2, 3, 4], 2, axis=0.0)',
 'tf.split([1, 2, 3, 4], [2, 2], axis=0.0)', 'tf.split(tf.constant([1, 2, 3, 4]), 2, axis=tf.constant(0.0))',
 'tf.split(tf.constant([1, 2, 3, 4]), [2, 2], axis=tf.constant(0.0))',
 'tf.split(tf.constant([1, 2, 3, 4]), [2, 2], axis=tf.constant(0, tf.int64))',
 'tf.split(tf.constant([1, 2, 3, 4]), 2, axis=tf.constant(0))',
 'tf.split(tf.constant([1, 2, 3, 4]), 2, axis=tf.Variable(0))',
 'tf.split(tf.constant([1, 2, 3, 4]), [2, 2], axis=np.float32(0))',
 'tf.split(tf.constant([1, 2, 3, 4]), [2, 2], axis=np.int64(0))', 'tf.split(tf.constant([1, 2, 3, 4]), 2, num=2)',
 'tf.split([1, 2, 3, 4], tf.constant(2, tf.int64))', 'tf.split([1, 2, 3, 4], tf.Variable(2))',
 'tf.split([1, 2, 3, 4], tf.Variable([2, 2]))', 'tf.split([1, 2, 3, 4], True)', 'tf.split([1, 2, 3, 4], (1, 3))',
 'tf.split([1, 2, 3, 4], [[1, 3]])', 'tf.split([1, 2, 3, 4], [])', "tf.split([1, 2, 3, 4], 'a')",
 'tf.split([1, 2, 3, 4], None)', 'tf.split([1, 2, 3, 4], [1, 3], num=3)',
 # index and axis arguments of a float (or bool, string) dtype: the op refuses them (gather, transpose); a Python
 # float axis is no int32 on TF's fast path, but a float tensor the op refuses where an input sends it to the
 # fallback; slice's fallback converts begin, then size to its dtype; argmin's axis has no Python check
 'tf.expand_dims(tf.constant([1]), 1.0)', 'tf.expand_dims(np.array([1]), 1.0)',
 'tf.expand_dims(tf.Variable([1]), 1.0)', 'tf.expand_dims(np.float32(1), 1.0)', 'tf.expand_dims(1, 1.0)',
 'tf.expand_dims((1,), 1.0)', 'tf.expand_dims([1], [0.0])', 'tf.expand_dims([1], np.float64(0.0))',
 'tf.gather(tf.constant([1, 2]), 1.0)', 'tf.gather(tf.constant([1, 2]), [1.0])',
 'tf.gather(tf.constant([1, 2]), np.float32(1.0))', 'tf.gather(tf.constant([1, 2]), np.array([1.0]))',
 'tf.gather([1, 2], 1, axis=0.0)', 'tf.gather(tf.constant([1, 2]), 1, axis=0.0)', 'tf.gather([1, 2], [1], axis=0.0)',
 'tf.gather(tf.constant([1, 2]), tf.constant([True]))', 'tf.gather([1, 2], [True])',
 'tf.concat([tf.constant([1]), tf.constant([2])], axis=1.0)', 'tf.concat([tf.constant([1]), [2]], axis=0.0)',
 'tf.concat([tf.constant([1]), np.array([2])], axis=0.0)', 'tf.concat((tf.constant([1]), tf.constant([2])), axis=0.0)',
 'tf.concat([np.array([1]), np.array([2])], axis=0.0)', 'tf.math.cumsum([1, 2], 0.0)',
 'tf.math.cumsum(tf.constant([1, 2]), 0.0)', 'tf.reduce_sum([1, 2], 0.0)', 'tf.reduce_sum(tf.constant([1, 2]), 0.0)',
 'tf.reverse([1, 2], [0.0])', 'tf.reverse(tf.constant([1, 2]), [0.0])', 'tf.reverse([1, 2], 0.0)',
 'tf.tile([1, 2], [2.0])', 'tf.one_hot([1], 2.0)', 'tf.one_hot(tf.constant([1]), 2.0)', 'tf.one_hot([1.0], 2)',
 'tf.split([1, 2, 3, 4], 2, axis=0.0)', 'tf.split(tf.constant([1, 2, 3, 4]), 2, axis=0.0)',
 'tf.split(tf.constant([1, 2, 3, 4]), [2, 2], axis=0.0)',
 'tf.split(tf.constant([1, 2, 3, 4]), [2, 2], axis=np.float32(0))',
 'tf.split(tf.constant([1, 2, 3, 4]), 2, axis=tf.constant(0.0))', 'tf.argmax([1.0, 2.0], 0.0)',
 'tf.unstack([1, 2], axis=0.0)', 'tf.stack([[1], [2]], axis=1.0)', 'tf.squeeze([[1]], axis=0.0)',
 'tf.transpose([[1, 2]], perm=[1.0, 0.0])', 'tf.transpose(tf.constant([[1, 2]]), perm=[1.0, 0.0])',
 'tf.reshape([1, 2], [2.0])', 'tf.slice([1, 2], [0.0], [1])', 'tf.slice([1, 2], [0], [1.0])',
 'tf.pad([1, 2], [[1.0, 0]])', 'tf.broadcast_to([1], [2.0])', 'tf.fill([2.0], 1)', 'tf.sequence_mask([1], 2.0)',
 'tf.eye(2.0)', 'tf.math.top_k([1.0, 2.0], 1.0)', 'tf.gather_nd([1, 2], [[1.0]])', 'tf.scatter_nd([[1.0]], [1], [2])',
 'tf.math.unsorted_segment_sum([1, 2], [0.0, 1.0], 2)', 'tf.math.segment_sum([1, 2], [0.0, 1.0])',
 'tf.math.unsorted_segment_sum([1, 2], [0, 1], 2.0)', 'tf.math.argmin([1.0, 2.0], 0.0)',
 'tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), [0.0])', 'tf.transpose(1.0, perm=[])',
 'tf.transpose([[1, 2]], perm=tf.constant([1, 0], tf.int64))', 'tf.transpose([[1, 2]], perm=np.array([1, 0]))',
 'tf.transpose([[1, 2]], perm=(1, 0))', 'tf.slice([1, 2], [], [])', 'tf.slice(tf.constant(1), [], [])',
 'tf.slice([1, 2], np.array([0]), [1.0])', 'tf.slice([1, 2], (0,), [1.0])', 'tf.slice([1, 2], [0], np.array([1.0]))',
 'tf.slice([1, 2], [0.0], [1.0])', 'tf.slice([1, 2], [0], [1])', 'tf.gather([1, 2], [])',
 'tf.gather([1, 2], tf.constant([1], tf.int16))', 'tf.reduce_sum([1, 2], [0.0])', 'tf.reduce_mean([1.0, 2], 0.0)',
 'tf.reduce_any([True], 0.0)', 'tf.reduce_any(np.array([True]), 0.0)', 'tf.reduce_max(np.float32(1), 0.0)',
 'tf.math.reduce_euclidean_norm((1.0, 2.0), 0.0)', 'tf.concat([np.float32(1), tf.constant([2.0])], 0.0)',
 "tf.gather([1, 2], 'a')", "tf.gather([1, 2], ['a'])", 'tf.gather([1, 2], tf.constant([1], tf.uint8))',
 'tf.gather([1, 2], tf.constant([1], tf.int8))', 'tf.gather([1, 2], np.array([1], np.int16))',
 'tf.gather([1, 2], [1 + 1j])', 'tf.gather(tf.constant([1, 2]), 1.0)', 'tf.gather([1, 2], [True])',
 'tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), [0.0])',
 'tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), 0.0)',
 'tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), [True])',
 'tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), tf.constant([0.0]))',
 'tf.argmin(tf.ones([2, 2]), tf.constant(0.0))', 'tf.argmin([[1.0, 2.0]], tf.constant(0.0))',
 'tf.argmin(tf.ones([2, 2]), tf.constant([0.0]))', 'tf.argmin([[1.0, 2.0]], tf.constant([0.0]))',
 'tf.argmin(tf.ones([2, 2]), 0.0)', 'tf.argmin([[1.0, 2.0]], 0.0)', 'tf.argmin(tf.ones([2, 2]), np.float64(0.0))',
 'tf.argmin([[1.0, 2.0]], np.float64(0.0))', 'tf.argmin(tf.ones([2, 2]), np.float32(0.0))',
 'tf.argmin([[1.0, 2.0]], np.float32(0.0))', 'tf.argmin(tf.ones([2, 2]), np.int32(0))',
 'tf.argmin([[1.0, 2.0]], np.int32(0))', 'tf.argmin(tf.ones([2, 2]), tf.constant(0, tf.int64))',
 'tf.argmin([[1.0, 2.0]], tf.constant(0, tf.int64))', 'tf.argmin(tf.ones([2, 2]), tf.constant(0, tf.int16))',
 'tf.argmin([[1.0, 2.0]], tf.constant(0, tf.int16))', 'tf.argmin(tf.ones([2, 2]), tf.constant(0, tf.uint8))',
 'tf.argmin([[1.0, 2.0]], tf.constant(0, tf.uint8))', 'tf.argmin(tf.ones([2, 2]), tf.constant(False))',
 'tf.argmin([[1.0, 2.0]], tf.constant(False))', 'tf.argmin(tf.ones([2, 2]), tf.Variable(0.0))',
 'tf.argmin([[1.0, 2.0]], tf.Variable(0.0))', 'tf.argmin(tf.ones([2, 2]), [0.0])', 'tf.argmin([[1.0, 2.0]], [0.0])',
 'tf.argmin(tf.ones([2, 2]), [0])', 'tf.argmin([[1.0, 2.0]], [0])', 'tf.argmin(tf.ones([2, 2]), tf.constant([]))',
 'tf.argmin([[1.0, 2.0]], tf.constant([]))', 'tf.argmin(tf.ones([2, 2]), True)', 'tf.argmin([[1.0, 2.0]], True)',
 'tf.argmin(tf.ones([2, 2]), None)', 'tf.argmin([[1.0, 2.0]], None)', 'tf.argmin(tf.ones([2, 2]), tf.constant([0]))',
 'tf.argmin([[1.0, 2.0]], tf.constant([0]))', 'tf.argmin(tf.ones([2, 2]), np.array([0]))',
 'tf.argmin([[1.0, 2.0]], np.array([0]))', # TruncateMod has CPU kernels for int32, int64, float32 and float64 only; diag pads a bool tensor or array with
 # bool(padding_value); softmax checks its axis in Python before the kernel's rank; l2_normalize's dim and
 # axis exclude each other; concat of one value checks its axis as an int32 scalar; divide converts x to y's dtype
 # unless a tensor, then truediv (straight away with a name)
 'tf.truncatemod(2, tf.constant([1.5], tf.float16))', 'tf.truncatemod(tf.constant([1.5], tf.float16), 2)',
 'tf.truncatemod(tf.constant([-7.5], tf.float32), 2.0)', 'tf.truncatemod(tf.constant([-7.5], tf.float64), 2.0)',
 'tf.truncatediv(tf.constant([-7.5], tf.bfloat16), tf.constant([2.0], tf.bfloat16))',
 'tf.linalg.diag(tf.constant([True, False]))', 'tf.linalg.diag(np.array([True, False]))',
 'tf.linalg.diag([True, False])', 'tf.linalg.diag(tf.Variable([True, False]))',
 'tf.linalg.diag(tf.constant([True, False]), padding_value=2)',
 'tf.linalg.diag(tf.constant([True, False]), padding_value=0.0)', 'tf.linalg.diag(tf.constant([True, False]), k=1)',
 'tf.linalg.diag_part(tf.constant([[True, False], [True, True]]))',
 'tf.linalg.diag_part(np.array([[True, False], [True, True]]))', 'tf.nn.softmax(0.5, axis=1)',
 'tf.nn.softmax(0.5, axis=-1)', 'tf.nn.softmax(0.5, axis=0)', 'tf.nn.softmax(tf.constant(0.5, tf.float64), axis=1)',
 'tf.nn.softmax([0.5], axis=1)', 'tf.nn.softmax([0.5], axis=0)', 'tf.nn.softmax(tf.ones([1, 1, 1, 1, 1, 1]), axis=1)',
 'tf.nn.softmax(tf.ones([1, 1, 1, 1, 1, 1]))', 'tf.nn.softmax(tf.ones([1, 1, 1, 1, 1, 1]), axis=9)',
 'tf.nn.log_softmax(0.5, axis=1)', 'tf.nn.log_softmax(tf.ones([1, 1, 1, 1, 1, 1]))',
 'tf.nn.softmax(tf.ones([1, 1, 1, 1, 1, 1], tf.bfloat16))', 'tf.nn.softmax(tf.ones([1, 2], tf.bfloat16), axis=0)',
 'tf.math.l2_normalize([1.0], axis=0, dim=0)', 'tf.math.l2_normalize([1.0], dim=0)',
 'tf.math.l2_normalize([[1.0, 2.0]], dim=1)', 'tf.concat(tf.constant(1), [2, 3])', 'tf.concat(tf.constant(1), 1.0)',
 'tf.concat(tf.constant(1), tf.constant(1.0))', 'tf.concat(tf.constant(1), tf.constant(1, tf.int64))',
 'tf.concat([tf.constant([1])], [[0]])', 'tf.concat([tf.constant([1])], 5)',
 'tf.concat([tf.constant([1])], np.array([0]))', 'tf.concat(tf.constant([1]), 0)', 'tf.divide(2, tf.Variable(2.0))',
 "tf.divide(2, tf.Variable(2.0), name='d')", "tf.divide(2, tf.constant(2.0), name='d')",
 "tf.divide(2.0, tf.constant(2.0), name='d')", "tf.divide(tf.constant(2), 2.5, name='d')", 'tf.divide(2, [2.0])',
 'tf.divide([2], tf.constant(2.0))', 'tf.divide(2.5, tf.constant(2))', 'tf.divide(np.float64(2), tf.constant(2.0))',
 'tf.divide(np.float32(2), tf.constant(2.0, tf.float64))', 'tf.divide(np.array([2]), tf.constant(2.0))',
 'tf.divide(tf.constant(2.0), np.array([2]))', 'tf.divide([1, 2], [2, 4])',
 'tf.divide(tf.Variable(2), tf.Variable(2.0))', 'tf.divide(tf.Variable(2.0), [2])', 'tf.divide(2, 3)', # the cross entropies of scalars, and softmax's over an axis other than -1, moved last by TF's perm
 # concat(range(axis), range(axis + 1, rank), [axis]) (whose Range refuses other negative axes)
 'tf.nn.softmax_cross_entropy_with_logits(tf.Variable(2.0), 2)', 'tf.nn.softmax_cross_entropy_with_logits(2.0, 2.0)',
 'tf.nn.softmax_cross_entropy_with_logits([2.0], 2.0)', 'tf.nn.softmax_cross_entropy_with_logits(2.0, [2.0])',
 'tf.nn.softmax_cross_entropy_with_logits(2.0, [2.0, 1.0])',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[1.0, 2.0]], axis=0)',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[1.0, 2.0]], axis=1)',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[1.0, 2.0]], axis=-2)',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[1.0, 2.0]], axis=2)',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[1.0, 2.0]], axis=5)',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], [[1.0, 2.0]], axis=-3)',
 'tf.nn.softmax_cross_entropy_with_logits([[[0.5, 0.5]]], [[[1.0, 2.0]]], axis=1)',
 'tf.nn.softmax_cross_entropy_with_logits([0.5, 0.5], [1.0, 2.0], axis=0)',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], tf.constant([[1.0, 2.0]], tf.bfloat16))',
 'tf.nn.softmax_cross_entropy_with_logits([[0.5, 0.5]], tf.constant([[1.0, 2.0]], tf.float16), axis=0)',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(2, 2.0)',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(tf.Variable(2), tf.Variable(2.0))',
 'tf.nn.sparse_softmax_cross_entropy_with_logits(0, [2.0])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits([0], 2.0)',
 'tf.nn.sparse_softmax_cross_entropy_with_logits([0], [[2.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits([[0]], [[2.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits([0.0], [[2.0]])',
 'tf.nn.sparse_softmax_cross_entropy_with_logits([3], [[2.0]])', 'tf.nn.sigmoid_cross_entropy_with_logits(2.0, 2.0)',
 # control flow and gradient utilities (behaviour and gradients: tests/suite/test_control_flow.py)
 'tf.cond(True, lambda: 1.0, lambda: 2.0)', 'tf.cond(tf.constant(False), lambda: [1], lambda: [2])',
 'tf.case([(tf.constant(False), lambda: 1.0)], default=lambda: 2.0)', 'tf.switch_case(tf.constant(1), [lambda: 1, lambda: 2])',
 'tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [0])', 'tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + i), (0, 0.5))',
 'tf.map_fn(lambda e: e * 2, tf.constant([1, 2]))', 'tf.scan(lambda a, e: a * e, tf.constant([1.0, 2.0, 3.0]))',
 'tf.foldl(lambda a, e: a - e, tf.constant([1, 2, 3]))', 'tf.foldr(lambda a, e: a - e, tf.constant([1, 2, 3]))',
 'tf.vectorized_map(lambda e: e + 1.0, tf.constant([[1.0], [2.0]]))', 'tf.identity_n([1.0, 2, [3.0]])',
 'tf.get_static_value(tf.constant([1, 2]))', 'tf.grad_pass_through(tf.round)(1.6)', 'tf.recompute_grad(tf.sin)(1.0)',
 'tf.TensorArray(tf.int32, size=2).write(1, 5).stack()', 'tf.TensorArray(tf.float32, size=1, element_shape=[None, 2]).element_shape',
 'tf.TensorSpec([None, 2], tf.int32)', 'tf.TensorSpec([2]).shape', "tf.TensorSpec((), 'float64', name='s')",
 # shapes with unknown dimensions, as TensorArray and TensorSpec keep them
 'tf.TensorShape([None, 3])', 'str(tf.TensorShape([None, 3]))', 'tf.TensorShape(None)', 'str(tf.TensorShape(None))',
 'tf.TensorShape([None, 3]).is_fully_defined()', 'tf.TensorShape([None, 3]).num_elements()', 'tf.TensorShape([None, 3]).rank',
 'tf.TensorShape([None, 3]).merge_with([2, None])', 'tf.TensorShape([None, 3]).merge_with([2, 4])',
 'tf.TensorShape([None, 3]).is_compatible_with([2, 3])', 'tf.TensorShape([None, 3]).is_compatible_with([2, 3, 1])',
 'tf.TensorShape(None).is_compatible_with([2])', 'tf.TensorShape([None, 3])[0]', 'tf.TensorShape([None, 3])[1:]',
 'len(tf.TensorShape(None))', 'tf.TensorShape(None).as_list()', 'tf.TensorShape([None, 3]).as_list()',
 'tf.TensorShape([None]) == tf.TensorShape([None])',
 # Convolutions: what TF's CPU kernels refuse (channels first, Conv3D's dilations, strides over the batch,
 # complex types), their checks, and the Python wrappers' own errors and conversions
 "tf.nn.conv2d(tf.ones([1, 2, 3, 4]), tf.ones([2, 2, 2, 3]), 1, 'SAME', data_format='NCHW')",
 "tf.nn.conv3d(tf.ones([1, 2, 3, 4, 2]), tf.ones([1, 1, 1, 2, 2]), [1] * 5, 'SAME', data_format='NCDHW')",
 "tf.nn.depthwise_conv2d(tf.ones([1, 2, 3, 4]), tf.ones([2, 2, 2, 1]), [1] * 4, 'SAME', data_format='NCHW')",
 "tf.nn.conv3d(tf.ones([1, 2, 3, 4, 2]), tf.ones([1, 2, 2, 2, 3]), [1] * 5, 'SAME', dilations=[1, 2, 1, 1, 1])",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 3]), [2, 1, 1, 1], 'SAME')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2], tf.int32), tf.ones([2, 2, 2, 3], tf.int32), 1, 'SAME')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2], tf.complex64), tf.ones([2, 2, 2, 3], tf.complex64), 1, 'SAME')",
 "tf.nn.conv3d(tf.ones([1, 2, 2, 2, 2], tf.int32), tf.ones([1, 1, 1, 2, 2], tf.int32), [1] * 5, 'SAME')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 4]), tf.ones([2, 2, 2, 4]), 1, 'SAME')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 3]), 1, 'FULL')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 3]), 1, 'EXPLICIT')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 3]), 1, [[0, 0], [1, 0], [0, 0]])",
 "tf.nn.conv2d(tf.ones([2, 1, 3, 4, 2]), tf.ones([2, 2, 2, 3]), 1, 'SAME')",
 "tf.nn.conv2d([[[[1.0, 2.0]]]], tf.ones([1, 1, 2, 3]), 1, 'SAME')",
 "tf.nn.conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 3]), [1, 2, 3], 'SAME')",
 "tf.nn.conv1d(tf.ones([3, 4, 2]), tf.ones([2, 2, 3]), 1, [[0, 0], [1, 0], [0, 0]])",
 "tf.nn.conv1d(tf.ones([3, 4, 2], tf.float16), np.ones([2, 2, 3], np.float32), 1, 'SAME')",
 "tf.nn.conv1d(tf.ones([2, 3, 4, 2]), tf.ones([2, 2, 3]), 2, 'SAME')",
 "tf.nn.convolution(tf.ones([1, 5, 6, 2]), tf.ones([2, 2, 2, 3]), strides=2, dilations=2)",
 "tf.nn.convolution(tf.ones([1, 5, 6, 2]), tf.ones([2, 2, 2, 3]), padding='SAME', dilations=[2, 1])",
 "tf.nn.convolution(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 3]), padding='SAME')",
 "tf.nn.convolution(tf.ones([1, 3, 4, 5, 2]), tf.ones([2, 2, 3, 2, 1]), padding='SAME', dilations=[1, 2, 2])",
 "tf.nn.depthwise_conv2d(tf.ones([1, 5, 6, 2]), tf.ones([2, 2, 2, 1]), [1, 2, 1, 1], 'SAME')",
 "tf.nn.depthwise_conv2d(tf.ones([1, 5, 6, 2]), tf.ones([2, 2, 3, 1]), [1, 1, 1, 1], 'SAME')",
 "tf.nn.depthwise_conv2d(tf.ones([1, 5, 6, 2]), tf.ones([2, 2, 2, 2]), [1, 2, 2, 1], 'SAME', dilations=[2, 2])",
 "tf.nn.depthwise_conv2d(tf.ones([6, 2]), tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], 'SAME')",
 "tf.nn.conv2d_transpose(tf.ones([1, 3, 4, 3]), tf.ones([2, 2, 2, 3]), [1, 5, 8, 2], 2, 'SAME')",
 "tf.nn.conv2d_transpose(tf.ones([1, 3, 4, 3]), tf.ones([2, 2, 2, 3]), [1, 6, 8, 2], 2, 'SAME')",
 "tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 3]), tf.ones([1, 2, 2, 2, 3]), [1, 2, 4, 4, 2], [1, 2, 2], 'SAME')",
 "tf.nn.conv1d_transpose(tf.ones([2, 3, 3]), tf.ones([2, 2, 3]), [2, 6, 2], 2, 'VALID')",
 "tf.nn.separable_conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 2]), tf.ones([2, 1, 4, 3]), [1] * 4, 'SAME')",
 "tf.nn.separable_conv2d(tf.ones([1, 3, 4, 2]), tf.ones([2, 2, 2, 2]), tf.ones([1, 1, 4, 3]), [1] * 4, 'VALID')",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_expression_matches_tensorflow(expression, tf, rt):
    found = compare_values(evaluate_expression(expression, tf), evaluate_expression(expression, rt))
    assert not found, "\n".join(d.summary() for d in found)


# What TF's oneDNN kernels get wrong (KNOWN_DIVERGENCES.md, "TF's oneDNN convolutions"): Conv2D of a rank-3 input kills
# the process, and a VALID window wider than the input returns uninitialised memory of the input's shape
ONEDNN_DEFECTS = [
    "tf.nn.conv2d(tf.ones([1, 3, 4, 2]), tf.ones([4, 2, 2, 3]), 1, 'VALID')",
    "tf.nn.conv2d(tf.ones([3, 4, 2]), tf.ones([2, 2, 2, 3]), 1, 'SAME')",
]


def _tensorflow_without_onednn(expression: str) -> dict:
    """TF's outcome of the expression in a fresh process whose TF runs its Eigen kernels."""
    script = ("import json, sys\nimport tensorflow as tf\n"
              "from reftape_properties.conformance.snippet_outcomes import evaluate_expression\n"
              "print(json.dumps(evaluate_expression(sys.argv[1], tf)))")
    done = subprocess.run([sys.executable, "-c", script, expression], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TF_ENABLE_ONEDNN_OPTS": "0", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("expression", ONEDNN_DEFECTS)
def test_where_tensorflows_onednn_kernels_fail_reftape_gives_its_eigen_kernels_answer(expression, tf, rt):
    """In this process where TF runs Eigen's kernels for float32, else in one where it does (TF's own rule,
    `reftape.dispatch`, checked against TF by test_dispatch.py)."""
    expected = (_tensorflow_without_onednn(expression) if runs_onednn("float32")
                else evaluate_expression(expression, tf))
    found = compare_values(expected, evaluate_expression(expression, rt))
    assert not found, "\n".join(d.summary() for d in found)


# Statements whose result `r` is compared, for what needs a `with` block
STATEMENTS = [
    # an assign returns an "UnreadVariable" on the variable's handle (trainable, reading the current value,
    # and no access when read), or None with read_value=False, which is no access of the variable either
    "w = tf.Variable(3.0, trainable=False)\nwith tf.GradientTape(persistent=True) as t:\n    a = w.assign(4.0)\n"
    "    y = a * 2\nr = (t.gradient(y, a), t.gradient(y, w), t.watched_variables(), a.trainable)",
    "w = tf.Variable(3.0)\nwith tf.GradientTape(persistent=True) as t:\n    a = w.assign(4.0)\n    y = a * w\n"
    "r = (t.gradient(y, [a, w]), t.watched_variables())",
    "w = tf.Variable(3.0)\na = w.assign(4.0)\nwith tf.GradientTape() as t:\n    y = a * w\nr = (t.gradient(y, [a, w]), t.watched_variables())",
    "w = tf.Variable(3.0)\nwith tf.GradientTape() as t:\n    a = w.assign_add(4.0, read_value=False)\nr = (a, t.watched_variables())",
    # linspace is TF's composition of differentiable ops: gradients reach start and stop
    # targets and sources that are not tensors: a number converts to a dtype as TF's enum numbers do (3 and
    # 3.0 to int32, 1 to float32, 2 to float64); where that dtype is not trainable its missing `dtype` is
    # read first, else its missing tape id
    "x = tf.constant(1.0)\nwith tf.GradientTape(persistent=True) as t:\n    t.watch(x)\n    y = x * x\n"
    "def attempt(target, source):\n    try:\n        return t.gradient(target, source)\n"
    "    except Exception as error:\n        return f'{type(error).__name__}: {error}'\n"
    "r = [attempt(3.0, x), attempt(3, x), attempt(1, x), attempt(2, x), attempt(True, x), attempt(np.float32(3.0), x), "
    "attempt(y, 3.0), attempt(y, 1.0), attempt((1.0,), x), attempt([3.0], x), attempt(1.0, 3.0), attempt(3.0, 1.0)]",
    "a = tf.Variable([1.0, -2.0]); b = tf.Variable(3.0)\nwith tf.GradientTape() as t:\n"
    "    y = tf.linspace(a, b, 4, axis=-1) * tf.constant([[1.0, 2.0, 3.0, 4.0]])\nr = t.gradient(y, [a, b])",
    # Convolutions' gradients where TF's CPU backprops refuse (dilations, groups) and where its gradient functions
    # decode a data format tf.nn.convolution records as None (Conv3D's first order, Conv2D's second)
    "x = tf.ones([1, 5, 6, 2])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
    "    y = tf.nn.conv2d(x, tf.ones([2, 2, 2, 3]), 1, 'SAME', dilations=2)\nr = t.gradient(y, x)",
    "x = tf.ones([1, 5, 6, 4])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
    "    y = tf.nn.conv2d(x, tf.ones([2, 2, 2, 4]), 1, 'SAME')\nr = t.gradient(y, x)",
    "x = tf.ones([1, 2, 3, 4, 2])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
    "    y = tf.nn.convolution(x, tf.ones([1, 2, 2, 2, 3]), padding='SAME')\nr = t.gradient(y, x)",
    "x = tf.ones([1, 3, 4, 2])\nwith tf.GradientTape() as t2:\n    t2.watch(x)\n    with tf.GradientTape() as t:\n"
    "        t.watch(x)\n        y = tf.nn.convolution(x, tf.ones([2, 2, 2, 3]), padding='SAME')\n"
    "    g = t.gradient(y, x)\nr = (g, t2.gradient(g, x))",
    "x = tf.ones([1, 5, 6, 2])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
    "    y = tf.nn.convolution(x, tf.ones([2, 2, 2, 3]), padding='SAME', dilations=2)\nr = t.gradient(y, x)",
]


@pytest.mark.parametrize("source", STATEMENTS)
def test_statements_match_tensorflow(source, tf, rt):
    found = compare_values(run_statements(source, tf), run_statements(source, rt))
    assert not found, "\n".join(d.summary() for d in found)


def test_the_reference_runs_every_expression_and_statement(tf):
    faults = {code: harness_faults(run(code, tf), None)
              for run, codes in ((evaluate_expression, EXPRESSIONS), (run_statements, STATEMENTS)) for code in codes}
    assert not {code: found for code, found in faults.items() if found}


# Planted snippets the harness must refuse: each is a harness error, never an agreement.
BROKEN_EXPRESSIONS = {
    "does not compile": "tf.constant(1.0) +",
    "statements where an expression belongs": "r = tf.constant(1.0)",
    "a name the expression lacks": "tf.constant(1.0) + undefined_name",
    "a tf name the reference lacks": "tf.no_such_function(1.0)",
    "a tf name built at run time that the reference lacks": "getattr(tf.math, 'no_such_' + 'function')(1.0)",
    "a value the harness cannot describe": "type('Unprintable', (), {'__repr__': lambda self: 1 / 0})()",
}
BROKEN_STATEMENTS = {
    "does not compile": "with tf.GradientTape() as t:\nr = 1",
    "an indented block cut from its header": "x = tf.constant(1.0)\n    r = x",
    "no result r": "x = tf.constant(1.0)",
    "a name the statements lack": "r = tf.constant(1.0) * undefined_name",
}


@pytest.mark.parametrize("source, run", [(code, evaluate_expression) for code in BROKEN_EXPRESSIONS.values()]
                         + [(code, run_statements) for code in BROKEN_STATEMENTS.values()],
                         ids=[f"expression: {k}" for k in BROKEN_EXPRESSIONS] + [f"statements: {k}" for k in BROKEN_STATEMENTS])
def test_a_broken_snippet_is_a_harness_error(source, run, tf, rt):
    found = compare_values(run(source, tf), run(source, rt))
    assert [d.kind for d in found] == ["harness"], [d.summary() for d in found]


def test_a_name_the_candidate_lacks_is_not_run_there(tf):
    import incomplete_backend

    assert evaluate_expression("tf.random.uniform([2])", incomplete_backend) == {"kind": "missing", "names": ["tf.random"]}
    found = compare_values(evaluate_expression("tf.random.uniform([2])", tf),
                           evaluate_expression("tf.random.uniform([2])", incomplete_backend))
    assert [d.kind for d in found] == ["missing"]


# TF caches the tensors it converts Python scalars to, by value (==) and the dtype asked for: a float
# zero takes the sign of the first zero converted for that dtype in the process. Each sequence runs in
# a fresh state per library, since the cache outlives every snippet.
ZERO_SEQUENCES = [
    "a = tf.constant(-0.0)", "tf.constant(0.0); a = tf.constant(-0.0)", "tf.constant(-0.0); a = tf.constant(0.0)",
    "tf.constant(0.0); a = tf.constant(-0.0, tf.float32)",
    "tf.constant(0.0); a = tf.concat([tf.constant([-0.0]), tf.constant([np.float32(-0.0)])], 0)",
    "tf.constant(0.0); a = tf.stack([tf.Variable(-0.0), tf.fill([], -0.0), tf.cast(-0.0, tf.float32)])",
    "tf.constant(0.0); a = tf.constant(1.0) * -0.0",
    "tf.constant(0.0, tf.float16); a = tf.constant(1.0, tf.float16) // tf.constant(-0.0, tf.float16)",
]

# One interpreter imports the library, then forks a child per sequence: each child starts where a fresh
# interpreter stands after the same imports (nothing converted yet; importing TensorFlow runs no op and
# starts no eager context), at the cost of one import of TensorFlow per worker instead of one per sequence.
_FORKING_SCRIPT = """\
import os
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'
import json, sys
import numpy as np
import {module} as tf
signs = {{}}
for source in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        scope = {{'tf': tf, 'np': np}}
        exec(source, scope)
        os.write(write, json.dumps(np.signbit(np.real(np.asarray(scope['a']))).tolist()).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        shown = pipe.read()
    if os.waitpid(pid, 0)[1] != 0:
        sys.exit(f"the sequence {{source!r}} failed")
    signs[source] = json.loads(shown)
print(json.dumps(signs))
"""


@functools.cache
def _signs_in_fresh_states(module: str) -> dict[str, list]:
    """The signs of `a` after each of ZERO_SEQUENCES, each run in a fresh state of `module`."""
    done = subprocess.run([sys.executable, "-c", _FORKING_SCRIPT.format(module=module), json.dumps(ZERO_SEQUENCES)],
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("source", ZERO_SEQUENCES)
def test_python_float_zeros_take_the_sign_of_the_first_zero_converted(source, tf, candidate):
    assert _signs_in_fresh_states(candidate.__name__)[source] == _signs_in_fresh_states(tf.__name__)[source]
