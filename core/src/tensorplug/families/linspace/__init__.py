"""The linspace family: LinSpace (TF.js's kernel, the Array API's ``linspace``): `num` evenly spaced
values from start to stop (stop included when ``endpoint``), computed in double precision and
rounded once to the output dtype, so the first value is start and the last stop, exactly. Here:
spec, onnx_lowerings."""
