// flockgym.envs.core._native: numpy_rng.hpp's generator for Python, so the
// tests compare its draws with numpy's (tests/core/test_numpy_rng.py) and a
// state moves between the two in both directions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "numpy_rng.hpp"
#include "numpy_rng_py.hpp"

namespace py = pybind11;
using flockgym::NumpyRng;

namespace {

template <class Draw>
std::vector<int64_t> repeat(int64_t count, Draw draw) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out.push_back(draw());
  return out;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "numpy's Generator(PCG64) draws reproduced in C++ (numpy_rng.hpp), for checking.";
  py::class_<NumpyRng>(m, "NumpyRng")
      .def(py::init([](const py::dict& state) { return flockgym::rng_from_state(state); }),
           py::arg("state"), "A generator in numpy's ``bit_generator.state``.")
      .def_property_readonly("state", [](const NumpyRng& r) { return flockgym::rng_to_state(r); })
      .def("random_raw", &NumpyRng::next_raw)
      .def("next_uint32", &NumpyRng::next_uint32)
      .def("random", &NumpyRng::random)
      .def("integers", py::overload_cast<int64_t, int64_t>(&NumpyRng::integers), py::arg("low"),
           py::arg("high"))
      .def("integers_many",
           [](NumpyRng& r, int64_t low, int64_t high, int64_t count) {
             return repeat(count, [&] { return r.integers(low, high); });
           })
      .def("random_many",
           [](NumpyRng& r, int64_t count) {
             std::vector<double> out;
             for (int64_t i = 0; i < count; ++i) out.push_back(r.random());
             return out;
           })
      .def("permutation", [](NumpyRng& r, int64_t n) { return r.permutation(n); }, py::arg("n"))
      .def("shuffle",
           [](NumpyRng& r, std::vector<int64_t> items) {
             r.shuffle(items);
             return items;
           })
      .def("choice_without_replacement", &NumpyRng::choice_without_replacement)
      .def("choice_weighted", &NumpyRng::choice_weighted);
}
