"""Code generation for the Together RL training API: spec revisions in, changelog and packages out."""
