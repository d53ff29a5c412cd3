"""Properties of reftape against TensorFlow: the comparison of outcomes and its tolerance model."""
