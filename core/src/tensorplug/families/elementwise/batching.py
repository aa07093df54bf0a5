"""Batching rules of the elementwise kernels: one generic rule for every arity (inputs
aligned on the batch axis, broadcasting does the rest), and one for the kernels whose inputs
have one shape (activation gradients, AddN)."""

from __future__ import annotations

from tensorplug.families._common.batching_util import elementwise, same_shape_elementwise

elementwise(
    # unary (a batched input keeps its batch axis where it is)
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BitwiseInvert", "Ceil", "Conj", "Cos",
    "Cosh", "Elu", "Exp", "Expm1", "Floor", "Gelu", "Imag", "IsFinite", "IsInf", "IsNan", "LeakyRelu",
    "Log", "Log1p", "LogSigmoid", "LogicalNot", "Negative", "Real", "Relu", "Relu6", "Round", "Rsqrt",
    "Selu", "Sigmoid", "Sign", "Signbit", "Sin", "Sinh", "Softplus", "Sqrt", "Square", "Step", "Tan",
    "Tanh", "Trunc", "Cast", "Clip", "Copy", "Erfinv",
    # binary, broadcasting
    "Add", "Atan2", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Copysign", "Divide", "Equal",
    "FloorDivide", "Greater", "GreaterEqual", "Hypot", "LeftShift", "Less", "LessEqual", "LogicalAnd",
    "LogicalOr", "LogicalXor", "Maximum", "Minimum", "Mod", "Multiply", "Nextafter", "NotEqual", "Pow",
    "RightShift", "SquaredDifference", "Subtract",
    # ternary
    "Where",
)
same_shape_elementwise("EluGrad", "ReluGrad", "GeluGrad", "AddN")
