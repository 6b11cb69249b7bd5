# ===- compiler.py - Compile a module once, call it from Python ---------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""``nvfp4.compile``: a module compiled once, called with numpy arrays.

:func:`compile` lowers an MLIR module with one of the project's pipelines,
loads it into MLIR's ExecutionEngine (through the project's C API,
``nvfp4-c/ExecutionEngine.h``) and returns a :class:`CompiledFunction`.
Calling it converts the arguments to the entry function's element types,
passes them as memref descriptors without copying, and returns the results
as numpy arrays that own their memory. When the recipe runs, its JSON
report (which contractions went to FP4, and why) comes back as
:attr:`CompiledFunction.report`.
"""

import ctypes
import json
import os
import re
import tempfile
from typing import Iterable, Optional, Sequence, Union

import numpy as np

__all__ = ["compile", "CompiledFunction", "PIPELINES"]

#: Pipelines by name: the pass pipeline (with ``{target}`` / ``{options}``
#: filled in) and the runtime libraries the lowered code calls.
PIPELINES = {
    "cpu": ("nvfp4-to-cpu{options}",
            ["mlir_c_runner_utils", "mlir_runner_utils",
             "nvfp4_reference_runtime", "nvfp4_cpu_runtime"]),
    # The host side keeps some nvfp4 ops (nvfp4.rescale, ...) as calls of
    # the CPU kernels.
    "gpu": ("nvfp4-to-gpu-executable{options}",
            ["mlir_c_runner_utils", "nvfp4_reference_runtime",
             "nvfp4_cpu_runtime", "nvfp4_cuda_runtime"]),
    "gpu-emulator": ("nvfp4-to-gpu-emulation{options}",
                     ["mlir_c_runner_utils", "nvfp4_reference_runtime",
                      "nvfp4_cpu_runtime", "nvfp4_gpu_emulator"]),
}

_MLIR_LIBRARIES = {"mlir_c_runner_utils", "mlir_runner_utils"}

# MLIR element type -> (numpy dtype, ctypes scalar type).
_SCALARS = {
    "f64": (np.float64, ctypes.c_double),
    "f32": (np.float32, ctypes.c_float),
    "f16": (np.float16, ctypes.c_uint16),
    "i1": (np.bool_, ctypes.c_bool),
    "i8": (np.int8, ctypes.c_int8),
    "i16": (np.int16, ctypes.c_int16),
    "i32": (np.int32, ctypes.c_int32),
    "i64": (np.int64, ctypes.c_int64),
    "index": (np.int64, ctypes.c_int64),
}

# The `report=FILE` option of nvfp4-recipe in an option string, FILE
# possibly in quotes or braces (which MLIR's option parser strips).
_REPORT_OPTION = re.compile(
    r"""(?:^|(?<=\s))report=("[^"]*"|'[^']*'|\{[^}]*\}|\S*)""")

# The allocated pointer MLIR gives memrefs of constant globals.
_GLOBAL_MEMREF_MARKER = 0xDEADBEEF

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def _dtype(element: str):
    if element == "bf16":
        try:
            import ml_dtypes
        except ImportError as e:  # pragma: no cover - ml_dtypes is optional
            raise TypeError(
                "nvfp4.compile: bf16 arguments and results need ml_dtypes "
                "(pip install ml_dtypes)") from e
        return np.dtype(ml_dtypes.bfloat16), ctypes.c_uint16
    if element not in _SCALARS:
        raise TypeError(
            f"nvfp4.compile: element type {element} has no numpy equivalent")
    dtype, ctype = _SCALARS[element]
    return np.dtype(dtype), ctype


def _descriptor_type(rank: int):
    """The memref descriptor struct of `rank`."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRefDescriptor{rank}", (ctypes.Structure,),
                {"_fields_": fields})


class _Slot:
    """One argument or result of the entry function."""

    def __init__(self, kind: str, index: int, element: str,
                 shape: Optional[Sequence[int]], is_memref: bool):
        self.name = f"{kind} {index}"
        self.is_memref = is_memref
        self.element = element
        self.shape = None if shape is None else tuple(shape)
        self.dtype, self.scalar_ctype = _dtype(element)
        self.ctype = (self.scalar_ctype if self.shape is None else
                      _descriptor_type(len(self.shape)))
        # 16-bit floats cross the C interface as their bits.
        self._passed_as_bits = self.scalar_ctype is ctypes.c_uint16

    def __repr__(self):
        if self.shape is None:
            return self.element
        dims = "x".join("?" if d < 0 else str(d) for d in self.shape)
        kind = "memref" if self.is_memref else "tensor"
        return f"{kind}<{dims + 'x' if dims else ''}{self.element}>"

    def to_value(self, value):
        """The ctypes value passed for `value`, and the array that backs it
        (kept alive by the caller for the duration of the call)."""
        if self.shape is None:
            scalar = np.asarray(value, dtype=self.dtype)
            if scalar.ndim:
                raise ValueError(f"{self.name}: expected a scalar "
                                 f"({self!r}), got shape {scalar.shape}")
            if self._passed_as_bits:
                scalar = scalar.view(np.uint16)
            return self.scalar_ctype(scalar.item()), None
        if self.is_memref:
            # Passed by reference: the function may write into it.
            array = value
            if not (isinstance(array, np.ndarray) and
                    array.dtype == self.dtype and
                    array.flags.c_contiguous and array.flags.writeable):
                raise TypeError(
                    f"{self.name}: a memref argument is the caller's buffer "
                    f"(the function may write it): pass a writeable "
                    f"C-contiguous numpy array of dtype {self.dtype}")
        else:
            array = np.asarray(value, dtype=self.dtype, order="C")
        if array.ndim != len(self.shape) or any(
                d >= 0 and d != n for d, n in zip(self.shape, array.shape)):
            raise ValueError(f"{self.name}: expected {self!r}, got shape "
                             f"{array.shape}")
        descriptor = self.ctype()
        address = array.ctypes.data
        descriptor.allocated = address
        descriptor.aligned = address
        descriptor.offset = 0
        for d, (size, stride) in enumerate(zip(array.shape, array.strides)):
            descriptor.sizes[d] = size
            descriptor.strides[d] = stride // array.itemsize
        return descriptor, array

    def from_value(self, value):
        """The numpy value of result `value` (a copy)."""
        if self.shape is None:
            if isinstance(value, ctypes._SimpleCData):
                value = value.value
            if self._passed_as_bits:
                return np.array(value, dtype=np.uint16).view(self.dtype)[()]
            return np.array(value, dtype=self.dtype)[()]
        rank = len(self.shape)
        sizes = [value.sizes[d] for d in range(rank)] if rank else []
        strides = [value.strides[d] for d in range(rank)] if rank else []
        result = np.empty(sizes, dtype=self.dtype)
        if result.size:
            itemsize = self.dtype.itemsize
            lowest = sum(min(0, (n - 1) * s) for n, s in zip(sizes, strides))
            highest = sum(max(0, (n - 1) * s) for n, s in zip(sizes, strides))
            start = value.aligned + (value.offset + lowest) * itemsize
            span = (highest - lowest + 1) * itemsize
            raw = np.frombuffer((ctypes.c_char * span).from_address(start),
                                dtype=self.dtype)
            view = np.lib.stride_tricks.as_strided(
                raw[-lowest:], shape=sizes,
                strides=[s * itemsize for s in strides], writeable=False)
            result[...] = view
        return result


class CompiledFunction:
    """The entry function of a compiled module. Call it with one array per
    tensor argument (anything ``numpy.asarray`` converts to its element
    type), one numpy array per memref argument (below), and a Python number
    per scalar argument. It returns ``None``, one value, or a tuple of
    values.

    Tensor arguments are never written: the compiler marks them read-only,
    so the caller's arrays are passed without copying (after a conversion
    when their dtype or layout differs). A memref argument is passed by
    reference -- the function may write it, as an output -- and must be a
    writeable C-contiguous array of exactly its dtype. Results are fresh
    numpy arrays.

    Attributes:
      entry: the name of the entry function.
      pipeline: the pass pipeline it was compiled with.
      report: the JSON report of ``nvfp4-recipe`` as parsed (a dict: its
        ``"contractions"`` and their ``"summary"``, docs/recipe.md); None
        when no recipe ran or its report went to stdout (``report=-``).
    """

    def __init__(self, program, entry: str, pipeline: str,
                 report: Optional[dict] = None):
        self._program = program
        self.entry = entry
        self.pipeline = pipeline
        self.report = report
        self.inputs = [_Slot("argument", i, e, s, m)
                       for i, (e, s, m) in enumerate(program.inputs)]
        self.outputs = [_Slot("result", i, e, s, m)
                        for i, (e, s, m) in enumerate(program.results)]
        # The C interface takes results through a pointer to a struct of
        # them when there are several or one memref.
        self._results_by_pointer = len(self.outputs) > 1 or (
            len(self.outputs) == 1 and self.outputs[0].shape is not None)
        if self._results_by_pointer:
            self._results_type = type("Results", (ctypes.Structure,), {
                "_fields_": [(f"r{i}", slot.ctype)
                             for i, slot in enumerate(self.outputs)]})

    @property
    def diagnostics(self) -> str:
        """Warnings and remarks the compilation printed."""
        return self._program.diagnostics

    def __repr__(self):
        args = ", ".join(map(repr, self.inputs))
        results = ", ".join(map(repr, self.outputs))
        return (f"<nvfp4.CompiledFunction @{self.entry}({args}) -> "
                f"({results}) via {self.pipeline}>")

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise TypeError(f"@{self.entry} takes {len(self.inputs)} "
                            f"arguments, got {len(args)}")
        keep_alive = []
        pointers = []

        def pass_by_address(value):
            keep_alive.append(value)
            pointers.append(ctypes.addressof(value))

        results = None
        if self._results_by_pointer:
            results = self._results_type()
            pass_by_address(ctypes.c_void_p(ctypes.addressof(results)))
        inputs_allocated = set()
        for slot, arg in zip(self.inputs, args):
            value, array = slot.to_value(arg)
            keep_alive.append(array)
            if array is None:
                pass_by_address(value)
            else:
                keep_alive.append(value)
                inputs_allocated.add(value.allocated or 0)
                pass_by_address(ctypes.c_void_p(ctypes.addressof(value)))
        scalar_result = None
        if len(self.outputs) == 1 and not self._results_by_pointer:
            scalar_result = self.outputs[0].scalar_ctype()
            pass_by_address(scalar_result)
        packed = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        self._program.invoke_packed(ctypes.addressof(packed))

        if scalar_result is not None:
            return self.outputs[0].from_value(scalar_result)
        if results is None:
            return None
        raw = [getattr(results, f"r{i}") for i in range(len(self.outputs))]
        values = tuple(slot.from_value(value)
                       for slot, value in zip(self.outputs, raw))
        # Every result is copied before any buffer is freed: two results
        # may share one. A buffer is the caller's when it is an input's;
        # a constant global's carries MLIR's marker.
        freed = set()
        for slot, value in zip(self.outputs, raw):
            allocated = value.allocated or 0 if slot.shape is not None else 0
            if (allocated and allocated != _GLOBAL_MEMREF_MARKER and
                    allocated not in inputs_allocated and
                    allocated not in freed):
                freed.add(allocated)
                _libc.free(allocated)
        return values[0] if len(values) == 1 else values


def _library(name: str, config) -> str:
    directory = (config.MLIR_LIBRARY_DIR if name in _MLIR_LIBRARIES else
                 config.LIBRARY_DIR)
    path = os.path.join(directory, f"lib{name}.so")
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"nvfp4.compile: runtime library {path} not found (set "
            f"NVFP4_LIBRARY_DIR / NVFP4_MLIR_LIBRARY_DIR)")
    return path


def _recipe_report_path(recipe_options: str, scratch: str):
    """The `recipe_options` of nvfp4-recipe with a report file, and that
    file: the caller's ``report=FILE`` when it names one, else a file in the
    directory `scratch`."""
    match = _REPORT_OPTION.search(recipe_options)
    if match:
        path = match.group(1)
        if path[:1] in ("\"", "'", "{"):
            path = path[1:-1]
        if path:
            return recipe_options, path
        recipe_options = (recipe_options[:match.start()] +
                          recipe_options[match.end():]).strip()
    path = os.path.join(scratch, "report.json")
    return f'{recipe_options} report="{path}"'.strip(), path


def _compile_with_recipe(module: str, entry: str, passes: str,
                         recipe_options: str, opt_level: int, libraries):
    """`module` compiled with ``nvfp4-recipe{recipe_options}`` before
    `passes`, and the recipe's report, parsed (None when it went to
    stdout)."""
    from . import _jit
    with tempfile.TemporaryDirectory(prefix="nvfp4-recipe-") as scratch:
        options, path = _recipe_report_path(recipe_options, scratch)
        program = _jit.Program(
            module, entry, f"builtin.module(nvfp4-recipe{{{options}}},"
            f"{passes})", opt_level, libraries)
        if path == "-":
            return program, None
        with open(path, encoding="utf-8") as f:
            return program, json.load(f)


def compile(module: Union[str, os.PathLike], pipeline: str = "cpu",
            target: Optional[str] = None, entry: str = "main",
            recipe: Union[None, bool, str] = None, options: str = "",
            opt_level: int = 2,
            shared_libs: Iterable[str] = ()) -> CompiledFunction:
    """Compiles `module` once; returns its function `entry` as a callable.

    Args:
      module: MLIR source text, or the path of a ``.mlir`` file.
      pipeline: ``"cpu"`` (``nvfp4-to-cpu``, bit-exact, runs anywhere),
        ``"gpu"`` (``nvfp4-to-gpu-executable``, needs a GPU of `target` and
        the CUDA runtime library), ``"gpu-emulator"``
        (``nvfp4-to-gpu-emulation``: the generated GPU kernels run in the
        project's CPU emulator), or a textual pass pipeline
        ``"builtin.module(...)"`` that ends in the LLVM dialect (then
        `shared_libs` names the libraries it needs).
      target: the GPU target of the GPU pipelines (default ``sm_100a``).
      entry: the public function to call.
      recipe: run ``nvfp4-recipe`` first: ``True`` for its defaults, or its
        options as a string (``"keep-first=1 keep-last=1"``). Its JSON
        report becomes :attr:`CompiledFunction.report`: read from the
        options' ``report=FILE`` when they have one (the file is kept),
        from a temporary file otherwise.
      options: further options of the named pipeline
        (``"fake-quant=true"``, ``"tile=128x128x64"``...).
      opt_level: LLVM's JIT optimization level, 0 to 3.
      shared_libs: extra runtime libraries to load, as paths.

    Raises:
      RuntimeError: with MLIR's diagnostics, when the module does not parse,
        verify or lower, or its entry function cannot be called.
      ImportError: when this package was installed without the compiler
        (``pip install ./python`` builds only the numerics).
    """
    try:
        from . import _config, _jit
    except ImportError as e:
        raise ImportError(
            "nvfp4.compile needs the package built with the project "
            "(PYTHONPATH=<build>/python_packages); the standalone wheel "
            "(pip install ./python) has no compiler") from e
    if isinstance(module, os.PathLike) or (
            isinstance(module, str) and module.endswith(".mlir") and
            "\n" not in module and os.path.exists(module)):
        with open(module, encoding="utf-8") as f:
            module = f.read()
    if not isinstance(module, str):
        raise TypeError("nvfp4.compile: module must be MLIR text or a path")

    if pipeline.startswith("builtin.module(") and pipeline.endswith(")"):
        if target is not None or options:
            raise ValueError("nvfp4.compile: target and options apply to the "
                             "named pipelines only")
        passes = pipeline[len("builtin.module("):-1]
        # What memref.copy and friends lower to.
        libraries = [_library("mlir_c_runner_utils", _config)]
    elif pipeline in PIPELINES:
        template, names = PIPELINES[pipeline]
        pipeline_options = options.strip()
        if pipeline != "cpu":
            pipeline_options = f"target={target or 'sm_100a'} " + \
                pipeline_options
        elif target is not None:
            raise ValueError("nvfp4.compile: the cpu pipeline has no target")
        passes = template.format(
            options=f"{{{pipeline_options.strip()}}}" if pipeline_options
            .strip() else "")
        libraries = [_library(name, _config) for name in names]
    else:
        raise ValueError(
            f"nvfp4.compile: unknown pipeline {pipeline!r}; expected one of "
            f"{sorted(PIPELINES)} or 'builtin.module(...)'")
    libraries += [os.fspath(p) for p in shared_libs]
    if recipe in (None, False):
        full_pipeline = f"builtin.module({passes})"
        program = _jit.Program(module, entry, full_pipeline, int(opt_level),
                               libraries)
        return CompiledFunction(program, entry, full_pipeline)
    if recipe is not True and not isinstance(recipe, str):
        raise TypeError("nvfp4.compile: recipe is True, False, None or an "
                        "option string")
    recipe_options = "" if recipe is True else recipe.strip()
    program, report = _compile_with_recipe(module, entry, passes,
                                           recipe_options, int(opt_level),
                                           libraries)
    # The pipeline as asked for: without the report's temporary file.
    shown = f"{{{recipe_options}}}" if recipe_options else ""
    return CompiledFunction(program, entry,
                            f"builtin.module(nvfp4-recipe{shown},{passes})",
                            report)
