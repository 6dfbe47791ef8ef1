from os import PathLike
from typing import Any, Literal, Mapping, Sequence, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

class ScanError(ValueError):
    """An error reported by scangen: .scan diagnostics (file:line:col, caret) or a runtime error."""

# A NumPy array, a PyTorch tensor (CUDA or CPU), a CuPy array, or any array with __dlpack__ (JAX, ...) or
# __cuda_array_interface__; the result is of the same kind.
_Array = TypeVar("_Array")
# Struct elements as one array per field: a tuple (nested for nested structs) or a dict by field name.
_Tuple = tuple[Any, ...]
_Dict = dict[str, Any]
# An element value: a number, or a tuple / dict / NumPy record for a struct type, or DSL text (identity).
_Value = Union[int, float, bool, np.generic, Sequence[Any], Mapping[str, Any]]

class Scan:
    name: str
    dtype: np.dtype[Any]
    input_dtype: np.dtype[Any]
    @property
    def spec(self) -> str: ...
    @property
    def backend(self) -> Literal["cuda", "opencl"]: ...
    @property
    def adjoint_spec(self) -> str: ...
    @property
    def identity(self) -> np.ndarray[Any, Any]: ...
    @overload
    def __call__(
        self,
        x: _Tuple,
        *,
        out: _Tuple | None = ...,
        exclusive: bool | None = ...,
        init: _Value | None = ...,
        axis: int | None = ...,
        reverse: bool | None = ...,
        offsets: Any = ...,
        flags: Any = ...,
        keys: Any = ...,
        return_aggregates: Literal[False] = ...,
        check_segments: bool = ...,
    ) -> _Tuple: ...
    @overload
    def __call__(
        self,
        x: _Dict,
        *,
        out: _Dict | None = ...,
        exclusive: bool | None = ...,
        init: _Value | None = ...,
        axis: int | None = ...,
        reverse: bool | None = ...,
        offsets: Any = ...,
        flags: Any = ...,
        keys: Any = ...,
        return_aggregates: Literal[False] = ...,
        check_segments: bool = ...,
    ) -> _Dict: ...
    @overload
    def __call__(
        self,
        x: _Array,
        *,
        out: _Array | None = ...,
        exclusive: bool | None = ...,
        init: _Value | None = ...,
        axis: int | None = ...,
        reverse: bool | None = ...,
        offsets: Any = ...,
        flags: Any = ...,
        keys: Any = ...,
        return_aggregates: Literal[False] = ...,
        check_segments: bool = ...,
    ) -> _Array: ...
    @overload
    def __call__(
        self,
        x: _Array,
        *,
        out: _Array | None = ...,
        exclusive: bool | None = ...,
        init: _Value | None = ...,
        axis: int | None = ...,
        reverse: bool | None = ...,
        offsets: Any = ...,
        flags: Any = ...,
        keys: Any = ...,
        return_aggregates: Literal[True] = ...,
        check_segments: bool = ...,
    ) -> tuple[_Array, Any]: ...

def compile(text_or_path: str | PathLike[str], name: str | None = ...) -> Scan: ...
@overload
def cumsum(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[False] = ..., check_segments: bool = ...
) -> _Array: ...
@overload
def cumsum(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[True] = ..., check_segments: bool = ...
) -> tuple[_Array, Any]: ...
@overload
def cumprod(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[False] = ..., check_segments: bool = ...
) -> _Array: ...
@overload
def cumprod(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[True] = ..., check_segments: bool = ...
) -> tuple[_Array, Any]: ...
@overload
def cummax(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[False] = ..., check_segments: bool = ...
) -> _Array: ...
@overload
def cummax(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[True] = ..., check_segments: bool = ...
) -> tuple[_Array, Any]: ...
@overload
def cummin(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[False] = ..., check_segments: bool = ...
) -> _Array: ...
@overload
def cummin(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[True] = ..., check_segments: bool = ...
) -> tuple[_Array, Any]: ...
@overload
def cumfmax(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[False] = ..., check_segments: bool = ...
) -> _Array: ...
@overload
def cumfmax(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[True] = ..., check_segments: bool = ...
) -> tuple[_Array, Any]: ...
@overload
def cumfmin(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[False] = ..., check_segments: bool = ...
) -> _Array: ...
@overload
def cumfmin(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: Literal[True] = ..., check_segments: bool = ...
) -> tuple[_Array, Any]: ...
@overload
def associative_scan(
    combine: str, x: _Tuple, *, identity: _Value | str, out: _Tuple | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., name: str = ..., names: Sequence[str] | None = ...,
    reverse: bool = ..., offsets: Any = ..., flags: Any = ..., keys: Any = ..., return_aggregates: Literal[False] = ...,
    check_segments: bool = ...
) -> _Tuple: ...
@overload
def associative_scan(
    combine: str, x: _Dict, *, identity: _Value | str, out: _Dict | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., name: str = ..., names: Sequence[str] | None = ...,
    reverse: bool = ..., offsets: Any = ..., flags: Any = ..., keys: Any = ..., return_aggregates: Literal[False] = ...,
    check_segments: bool = ...
) -> _Dict: ...
@overload
def associative_scan(
    combine: str, x: _Array, *, identity: _Value | str, out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., name: str = ..., names: Sequence[str] | None = ...,
    reverse: bool = ..., offsets: Any = ..., flags: Any = ..., keys: Any = ..., return_aggregates: Literal[False] = ...,
    check_segments: bool = ...
) -> _Array: ...
@overload
def associative_scan(
    combine: str, x: _Array, *, identity: _Value | str, out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., name: str = ..., names: Sequence[str] | None = ...,
    reverse: bool = ..., offsets: Any = ..., flags: Any = ..., keys: Any = ..., return_aggregates: Literal[True] = ...,
    check_segments: bool = ...
) -> tuple[_Array, Any]: ...
def logcumsumexp(
    x: _Array, *, dtype: npt.DTypeLike | None = ..., out: _Array | None = ..., exclusive: bool = ...,
    init: _Value | None = ..., axis: int | None = ..., reverse: bool = ..., offsets: Any = ..., flags: Any = ...,
    keys: Any = ..., return_aggregates: bool = ..., check_segments: bool = ...
) -> Any: ...
def linear_recurrence(a: Any, b: _Array, *, axis: int = ..., reverse: bool = ..., h0: Any = ...) -> _Array: ...
def vjp(
    scan: Scan | str, x: Any, grad: Any, *, exclusive: bool | None = ..., init: _Value | None = ...,
    axis: int | None = ..., reverse: bool | None = ..., offsets: Any = ..., flags: Any = ..., keys: Any = ...
) -> np.ndarray[Any, Any]: ...
def dtype_of(scan: Scan | str, *, input: bool = ...) -> np.dtype[Any]: ...
def runtime_info() -> dict[str, Any]: ...
