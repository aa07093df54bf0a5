"""The elementwise family: unary math, binary arithmetic, comparisons, logic, bitwise operations, Cast,
Where and Clip. Here: spec, ops, gradients, jvps, batching, bitwise."""
