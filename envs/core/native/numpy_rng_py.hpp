// numpy's bit_generator.state dict <-> NumpyRng, for pybind11 modules.
//
// The dict is {"bit_generator": "PCG64", "state": {"state": int, "inc": int},
// "has_uint32": int, "uinteger": int}; the 128-bit ints are split into halves
// with Python's own >> and & (pybind11 casts only up to 64 bits).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "numpy_rng.hpp"

namespace flockgym {

namespace py = pybind11;

inline u128 u128_from_py(const py::handle& value) {
  const py::int_ number = py::reinterpret_borrow<py::object>(value);
  const py::int_ mask(0xFFFFFFFFFFFFFFFFULL);
  const uint64_t low = py::int_(number & mask).cast<uint64_t>();
  const uint64_t high = py::int_((number >> py::int_(64)) & mask).cast<uint64_t>();
  return make_u128(high, low);
}

inline py::int_ u128_to_py(u128 value) {
  const py::int_ high(static_cast<uint64_t>(value >> 64));
  const py::int_ low(static_cast<uint64_t>(value));
  return py::int_((high << py::int_(64)) | low);
}

// A NumpyRng in the state numpy's bit_generator.state dict gives (trusted:
// the Python side checks a saved state before it reaches here).
inline NumpyRng rng_from_state(const py::dict& state) {
  const std::string kind = py::str(state["bit_generator"]);
  if (kind != "PCG64") throw py::value_error("rng state must be a PCG64 state, got " + kind);
  const py::dict inner = state["state"];
  return NumpyRng(u128_from_py(inner["state"]), u128_from_py(inner["inc"]),
                  state["has_uint32"].cast<int>() != 0, state["uinteger"].cast<uint32_t>());
}

// numpy's bit_generator.state dict of ``rng``.
inline py::dict rng_to_state(const NumpyRng& rng) {
  py::dict inner;
  inner["state"] = u128_to_py(rng.state);
  inner["inc"] = u128_to_py(rng.inc);
  py::dict out;
  out["bit_generator"] = "PCG64";
  out["state"] = inner;
  out["has_uint32"] = static_cast<int>(rng.has_uint32);
  out["uinteger"] = rng.uinteger;
  return out;
}

}  // namespace flockgym
