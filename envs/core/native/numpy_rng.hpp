// numpy's Generator(PCG64), draw for draw, in C++17.
//
// Every game owns one numpy.random.Generator(PCG64) and saves its
// bit_generator.state in the state JSON. A compiled engine must draw exactly
// what the Python engine draws, so this header reproduces the numpy calls the
// games make, following numpy's C source (numpy/random/src/pcg64/pcg64.h and
// numpy/random/src/distributions/distributions.c, numpy/random/_generator.pyx):
//
//   bit_generator.random_raw()     -> next_raw()        (one 64-bit output)
//   Generator.random()             -> random()          (53-bit double)
//   Generator.integers(lo, hi)     -> integers(lo, hi)  (Lemire, 32-bit path
//                                     with the buffered half-word below 2**32)
//   Generator.shuffle / permutation -> shuffle / permutation (Fisher-Yates from
//                                     the top, random_interval's masked draws)
//   Generator.choice(n)            -> integers(0, n)
//   Generator.choice(n, k, replace=False) -> choice_without_replacement (Floyd,
//                                     then _shuffle_int; numpy's tail-shuffle
//                                     branch for n > 10000 as well)
//   Generator.choice(n, p=...)     -> choice_weighted (cumsum, divide by the
//                                     last, searchsorted right of random())
//
// The state is numpy's: 128-bit state and increment, plus the has_uint32 /
// uinteger buffer that next_uint32 keeps (numpy returns the high half of a
// 64-bit output on the next 32-bit draw). It round-trips with
// bit_generator.state exactly (numpy_rng_py.hpp converts the Python dict).
//
// Needs a compiler with unsigned __int128 (GCC, Clang).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#if !defined(__SIZEOF_INT128__)
#error "numpy_rng.hpp needs unsigned __int128 (GCC or Clang)"
#endif

namespace flockgym {

using u128 = unsigned __int128;

inline constexpr u128 make_u128(uint64_t high, uint64_t low) {
  return (static_cast<u128>(high) << 64) | low;
}

class NumpyRng {
 public:
  // numpy's PCG_DEFAULT_MULTIPLIER_128.
  static constexpr u128 kMultiplier =
      make_u128(2549297995355413924ULL, 4865540595714422341ULL);

  u128 state = 0;
  u128 inc = 1;
  bool has_uint32 = false;
  uint32_t uinteger = 0;

  NumpyRng() = default;
  NumpyRng(u128 state_, u128 inc_, bool has_uint32_, uint32_t uinteger_)
      : state(state_), inc(inc_), has_uint32(has_uint32_), uinteger(uinteger_) {}

  // pcg_setseq_128_xsl_rr_64_random_r: step, then output the new state.
  uint64_t next_raw() {
    state = state * kMultiplier + inc;
    const uint64_t high = static_cast<uint64_t>(state >> 64);
    const uint64_t low = static_cast<uint64_t>(state);
    const unsigned rot = static_cast<unsigned>(high >> 58u);
    const uint64_t x = high ^ low;
    return (x >> rot) | (x << ((64u - rot) & 63u));
  }
  uint64_t next_uint64() { return next_raw(); }

  // pcg64_next32: the low half now, the high half on the next call.
  uint32_t next_uint32() {
    if (has_uint32) {
      has_uint32 = false;
      return uinteger;
    }
    const uint64_t next = next_raw();
    has_uint32 = true;
    uinteger = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next & 0xffffffffULL);
  }

  // Generator.random(): 53 random bits scaled to [0, 1).
  double random() { return static_cast<double>(next_uint64() >> 11) * (1.0 / 9007199254740992.0); }

  // buffered_bounded_lemire_uint32 (rng = range - 1, rng != 0xFFFFFFFF).
  uint32_t bounded_lemire_uint32(uint32_t rng) {
    const uint32_t rng_excl = rng + 1;
    uint64_t m = static_cast<uint64_t>(next_uint32()) * rng_excl;
    uint32_t leftover = static_cast<uint32_t>(m & 0xFFFFFFFFULL);
    if (leftover < rng_excl) {
      const uint32_t threshold = (UINT32_MAX - rng) % rng_excl;
      while (leftover < threshold) {
        m = static_cast<uint64_t>(next_uint32()) * rng_excl;
        leftover = static_cast<uint32_t>(m & 0xFFFFFFFFULL);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // bounded_lemire_uint64 (rng = range - 1, rng != 0xFFFFFFFFFFFFFFFF).
  uint64_t bounded_lemire_uint64(uint64_t rng) {
    const uint64_t rng_excl = rng + 1;
    u128 m = static_cast<u128>(next_uint64()) * rng_excl;
    uint64_t leftover = static_cast<uint64_t>(m);
    if (leftover < rng_excl) {
      const uint64_t threshold = (UINT64_MAX - rng) % rng_excl;
      while (leftover < threshold) {
        m = static_cast<u128>(next_uint64()) * rng_excl;
        leftover = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // random_bounded_uint64 (one value, Lemire): off + a draw in [0, rng].
  uint64_t bounded_uint64(uint64_t off, uint64_t rng) {
    if (rng == 0) return off;
    if (rng <= 0xFFFFFFFFULL) {
      if (rng == 0xFFFFFFFFULL) return off + next_uint32();
      return off + bounded_lemire_uint32(static_cast<uint32_t>(rng));
    }
    if (rng == UINT64_MAX) return off + next_uint64();
    return off + bounded_lemire_uint64(rng);
  }

  // Generator.integers(low, high) for int64, high exclusive.
  int64_t integers(int64_t low, int64_t high) {
    if (high <= low) throw std::invalid_argument("integers: high <= low");
    const uint64_t rng = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) - 1;
    return static_cast<int64_t>(bounded_uint64(static_cast<uint64_t>(low), rng));
  }
  int64_t integers(int64_t high) { return integers(0, high); }

  // random_interval: a draw in [0, max] by masked rejection.
  uint64_t random_interval(uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t value;
    if (max <= 0xffffffffULL) {
      while ((value = (next_uint32() & mask)) > max) {
      }
    } else {
      while ((value = (next_uint64() & mask)) > max) {
      }
    }
    return value;
  }

  // Generator.shuffle of a 1-D array or a list: i from n-1 down to first.
  template <class T>
  void shuffle(T* data, int64_t n, int64_t first = 1) {
    for (int64_t i = n - 1; i >= first; --i) {
      const int64_t j = static_cast<int64_t>(random_interval(static_cast<uint64_t>(i)));
      std::swap(data[i], data[j]);
    }
  }
  template <class T>
  void shuffle(std::vector<T>& items) {
    shuffle(items.data(), static_cast<int64_t>(items.size()));
  }

  // _shuffle_int (choice without replacement only): Lemire draws in [0, i],
  // not random_interval's masked ones.
  void shuffle_int(int64_t* data, int64_t n, int64_t first) {
    for (int64_t i = n - 1; i >= first; --i) {
      const int64_t j = static_cast<int64_t>(bounded_uint64(0, static_cast<uint64_t>(i)));
      std::swap(data[i], data[j]);
    }
  }

  // Generator.permutation(n): arange(n), shuffled.
  std::vector<int64_t> permutation(int64_t n) {
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = i;
    shuffle(out);
    return out;
  }

  // Generator.permutation(items): a shuffled copy.
  template <class T>
  std::vector<T> permutation(const std::vector<T>& items) {
    std::vector<T> out(items);
    shuffle(out);
    return out;
  }

  // Generator.choice(n, size=k, replace=False) (shuffle=True): indices.
  std::vector<int64_t> choice_without_replacement(int64_t pop_size, int64_t size) {
    if (size > pop_size || size < 0) throw std::invalid_argument("choice: bad sample size");
    std::vector<int64_t> idx;
    if (pop_size > 10000 && size > pop_size / 50) {
      // Tail shuffle: the last `size` of a partial shuffle of arange(pop_size).
      std::vector<int64_t> all = [&] {
        std::vector<int64_t> a(static_cast<size_t>(pop_size));
        for (int64_t i = 0; i < pop_size; ++i) a[static_cast<size_t>(i)] = i;
        return a;
      }();
      const int64_t first = pop_size - size > 1 ? pop_size - size : 1;
      shuffle_int(all.data(), pop_size, first);
      idx.assign(all.end() - size, all.end());
      return idx;
    }
    // Floyd's algorithm with numpy's open-addressing set.
    idx.assign(static_cast<size_t>(size), 0);
    uint64_t set_size = static_cast<uint64_t>(1.2 * static_cast<double>(size));
    uint64_t mask = set_size;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    set_size = 1 + mask;
    const uint64_t empty = UINT64_MAX;
    std::vector<uint64_t> hash_set(static_cast<size_t>(set_size), empty);
    for (int64_t j = pop_size - size; j < pop_size; ++j) {
      const uint64_t val = bounded_uint64(0, static_cast<uint64_t>(j));
      uint64_t loc = val & mask;
      while (hash_set[loc] != empty && hash_set[loc] != val) loc = (loc + 1) & mask;
      const size_t out = static_cast<size_t>(j - pop_size + size);
      if (hash_set[loc] == empty) {
        hash_set[loc] = val;
        idx[out] = static_cast<int64_t>(val);
      } else {
        loc = static_cast<uint64_t>(j) & mask;
        while (hash_set[loc] != empty) loc = (loc + 1) & mask;
        hash_set[loc] = static_cast<uint64_t>(j);
        idx[out] = j;
      }
    }
    shuffle_int(idx.data(), size, 1);
    return idx;
  }

  // Generator.choice(len(p), p=p): one index (p already checked by the caller).
  int64_t choice_weighted(const std::vector<double>& p) {
    std::vector<double> cdf(p.size());
    double total = 0.0;
    for (size_t i = 0; i < p.size(); ++i) {
      total += p[i];
      cdf[i] = total;
    }
    const double last = cdf.back();
    for (double& c : cdf) c /= last;
    const double u = random();
    // searchsorted(side="right"): the first index whose cdf exceeds u.
    size_t lo = 0, hi = cdf.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (u < cdf[mid]) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return static_cast<int64_t>(lo);
  }
};

}  // namespace flockgym
