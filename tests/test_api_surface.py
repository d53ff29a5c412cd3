"""The public API's surface against live TensorFlow: each expression is written once and
evaluated with `tf` bound to TensorFlow and to reftape; values, dtypes, shapes, reprs of shapes and
dtypes, returned structures and exception classes must agree."""

import numpy as np
import pytest

from reftape_oracle.outcome import describe, describe_error
from reftape_properties.compare import compare_values

EXPRESSIONS = [
 "tf.constant([[1, 2], [3, 4]])", "tf.constant(1.5, shape=[2, 2])", "tf.constant([1.0, 2.0]).shape",
 "repr(tf.constant([1.0, 2.0]).shape)", "tf.constant([1.0, 2.0]).shape.as_list()", "len(tf.constant([1.0, 2.0]).shape)",
 "tf.constant([1.0, 2.0]).shape == (2,)", "tf.constant([[1.0]]).ndim", "abs(tf.constant(-2.0))", "float(tf.constant(2.5))",
 "np.asarray(tf.constant([1, 2]))", "tf.constant([1.0, 2.0])[tf.newaxis, ...]", "tf.constant([[1, 2], [3, 4]])[:, 1]",
 "tf.constant([[1, 2], [3, 4]])[1, ::-1]", "tf.constant([1.0, 2.0]) > 1.5", "tf.constant(7) // 2", "tf.constant(7) % 3",
 "tf.constant(-7.5) // 2.0", "tf.constant(-7.5) % 2.0", "tf.constant(2) ** 3", "tf.constant([1, 2]) / tf.constant([2, 4])",
 "tf.range(5)", "tf.range(1, 2, 0.25)", "tf.linspace(0.0, 1.0, 5)", "tf.eye(2, 3)", "tf.fill([2, 2], 7)", "tf.ones([2], tf.int32)",
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
 "tf.Variable(2.0).assign_add(1.0).numpy()", "tf.Variable([1, 2]).shape", "tf.Variable(3, name='q').name", "tf.Variable(1.0, trainable=False).trainable",
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
]


def _evaluate(expression, ns):
    try:
        return describe(eval(expression, {"tf": ns, "np": np}), ns)
    except Exception as error:  # noqa: BLE001 - an exception is an outcome to compare
        return describe_error(error, ns)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_expression_matches_tensorflow(expression, tf, rt):
    found = compare_values(_evaluate(expression, tf), _evaluate(expression, rt))
    assert not found, "\n".join(d.summary() for d in found)
