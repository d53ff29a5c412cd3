"""Running a program inside one `tf.function`: the execution mode the function check compares with eager.

`run_traced` calls a program's `_program()` (oracle/script.py) as the body of one traced function, the
way a user wraps a training step:
- the program has no Python control flow over tensors, so AutoGraph is off;
- tensors made from literals are constants of the graph, and Variables are made once, outside the graph
  (under `init_scope`), as TF requires of a function called more than once;
- every value the program reports is returned by the function and described after it has run (a
  symbolic tensor has no value while it is traced);
- what raises while the function is traced (a gradient call's trace-time error, caught and reported by
  the program like an eager exception) is reported as eagerly; what raises when the graph runs stops the
  whole program, and the values of that run are never reported.
It is self-contained (it uses only its argument) because standalone scripts embed its source.
"""


def run_traced(scope):
    """Runs `scope['_program']` inside `scope['tf'].function`; `scope` is the program's global namespace,
    whose `describe` and `tf` it replaces while the function is traced and restores after."""
    tf, np, describe, outcome = scope["tf"], scope["np"], scope["describe"], scope["_outcome"]
    reported, variables, made = [], [], [0]

    class Deferred:
        def __init__(self, index):
            self.index = index

    def computed(x):   # a value the graph computes: the function returns it (a Variable as its value then)
        return not isinstance(x, (np.ndarray, np.generic)) and hasattr(x, "dtype") and hasattr(x, "shape")

    def defer(value, namespace):
        reported.append((value, tf.nest.flatten(value)))
        return Deferred(len(reported) - 1)

    def returned():
        return [[x.read_value() if isinstance(x, tf.Variable) else x for x in leaves if computed(x)]
                for _, leaves in reported]

    def as_reported(index, results):
        value, leaves = reported[index]
        results = iter(results[index])
        values = [(_snapshot(x, next(results)) if isinstance(x, tf.Variable) else next(results)) if computed(x) else x
                  for x in leaves]
        return tf.nest.pack_sequence_as(value, values)

    def _snapshot(variable, value):   # the Variable as it was when reported: its name, trainability and value then
        return tf.Variable(value, name=variable.name.split(":")[0], trainable=variable.trainable)

    class Namespace:
        """What the traced body sees as `tf`: the backend, with Variables made once, outside the graph."""

        def __getattr__(self, name):
            return getattr(tf, name)

        def Variable(self, *args, **kwargs):
            if made[0] == len(variables):
                with tf.init_scope():
                    variables.append(tf.Variable(*args, **kwargs))
            made[0] += 1
            return variables[made[0] - 1]

    def body():
        scope["_traced_body_entered"] = True   # from here on, what raises is the program's (the interpreter's rule)
        reported.clear()
        made[0] = 0
        scope["_program"]()
        return returned()

    def settle(results):
        for table in (outcome["values"], outcome["calls"]):
            for name, value in list(table.items()):
                if isinstance(value, Deferred):
                    if results is None:
                        del table[name]
                    else:
                        table[name] = describe(as_reported(value.index, results), tf)

    scope["tf"], scope["describe"] = Namespace(), defer
    try:
        results = tf.function(body, autograph=False)()
    except BaseException:
        settle(None)
        raise
    finally:
        scope["tf"], scope["describe"] = tf, describe
    settle(results)
