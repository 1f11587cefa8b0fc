// Device code of every launch configuration that the kernels in kernels/ declare for AMD targets
// (gfx942, gfx90a), for the ISA check (gpu_backend/scripts/isa_build.sh): each kernel's table is
// walked at compile time and every row a launch for the compiled target (gfx942 or gfx90a) can take
// is instantiated, once per distinct configuration, in every element type and template variant the
// kernel has. So the check follows the declarations: a row added, changed or removed changes what
// is compiled and checked, with no list here to keep in step. Only the mapping from a row's fields
// to each kernel's template arguments is written here, as the kernels' own launchers write it.
#include <cstdint>
#include <utility>

#include "bv/bv.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/conv2d.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/dropout.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/rope.hpp"
#include "bv/kernels/softmax.hpp"

namespace bv::gpu::coverage {
using namespace bv::kernels;
using bv::gpu_lang::detail::kernel_entry;

// Referencing a kernel's entry makes the device pass emit it: the entry its launch takes, whose
// registers are bounded for the row's programs an SM (its min_programs, 0 for the default).
const void* volatile sink;
template <auto K, int MinPrograms = 0>
void emit() {
  sink = reinterpret_cast<const void*>(kernel_entry<K, MinPrograms>());
}

// Whether a launch for target t can take row i: with the key fixed at Key, the row find_config
// picks; with a runtime key, a row for t that the rows before it for t do not shadow (an earlier
// row for any key, or one for every key this row takes).
template <class Decl, int64_t Key>
constexpr bool pickable(int i, target t) {
  if constexpr (Key != runtime_key) {
    return find_config<Decl>(t, Key) == i;
  } else {
    const launch_config& r = Decl::table[i];
    if (!r.targets.has(t)) return false;
    for (int j = 0; j < i; ++j) {
      const launch_config& e = Decl::table[j];
      if (e.targets.has(t) && (e.up_to == 0 || (r.up_to != 0 && e.up_to >= r.up_to))) return false;
    }
    return true;
  }
}
// The target this device pass compiles for (isa_build.sh runs one pass per target): each
// target's assembly holds the rows declared for it and nothing else, so a row declared for gfx942
// alone is not held to gfx90a's register budget.
#if defined(__gfx90a__)
inline constexpr target compiled_target = target::gfx90a;
#elif defined(__gfx942__)
inline constexpr target compiled_target = target::gfx942;
#else
#error "coverage.cu is a device-only build for gfx942 or gfx90a (gpu_backend/scripts/isa_build.sh)"
#endif
template <class Decl, int64_t Key>
constexpr bool amd_pickable(int i) {
  return pickable<Decl, Key>(i, compiled_target);
}
// The first AMD-pickable row that launches the same thing as row i (the one instantiated).
template <class Decl, int64_t Key>
constexpr int amd_canonical(int i) {
  for (int j = 0; j <= i; ++j)
    if (amd_pickable<Decl, Key>(j) && same_launch(Decl::table[j], Decl::table[i])) return j;
  return -1;
}

// f(chosen_config<Decl, I>{}) for every row I that a launch for the compiled target can take
// (with the key known only at run time, or fixed at Key), once per distinct configuration.
template <class Decl, int64_t Key = runtime_key, class F>
void amd_rows(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (
        [&] {
          if constexpr (amd_canonical<Decl, Key>(I) == I) f(chosen_config<Decl, I>{});
        }(),
        ...);
  }
  (std::make_integer_sequence<int, config_count<Decl>>{});
}

// The element types the kernels are written for.
template <class F>
void each_dtype(F&& f) {
  f(half{});
  f(bfloat16{});
  f(float{});
}

void all() {
  // Elementwise, one block per program.
  amd_rows<add_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) { emit<add_kernel<decltype(t), k.block, k.waves>>(); });
  });
  amd_rows<copy_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) { emit<copy_kernel<decltype(t), k.block, k.waves>>(); });
  });
  amd_rows<dropout_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) { emit<dropout_kernel<decltype(t), k.block, k.waves>>(); });
  });
  amd_rows<act_mul_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) {
      using T = decltype(t);
      emit<act_mul_fwd_kernel<T, gate_act::silu, k.block, k.waves>>();
      emit<act_mul_fwd_kernel<T, gate_act::gelu_tanh, k.block, k.waves>>();
      emit<act_mul_bwd_kernel<T, gate_act::silu, k.block, k.waves>>();
      emit<act_mul_bwd_kernel<T, gate_act::gelu_tanh, k.block, k.waves>>();
    });
  });
  // Row-wise kernels.
  amd_rows<softmax_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) {
      using T = decltype(t);
      if constexpr (k.variant == 1)
        emit<softmax_looped_kernel<T, k.block, k.waves>>();
      else
        emit<softmax_kernel<T, k.block, k.waves>>();
    });
  });
  amd_rows<cross_entropy_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) {
      using T = decltype(t);
      emit<cross_entropy_fwd_kernel<T, k.block, k.waves>>();
      emit<cross_entropy_bwd_kernel<T, k.block, k.waves>>();
    });
  });
  amd_rows<rmsnorm_fwd_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) { emit<rmsnorm_fwd_kernel<decltype(t), k.block, k.waves>>(); });
  });
  amd_rows<rmsnorm_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) {
      using T = decltype(t);
      emit<add_rmsnorm_fwd_kernel<T, k.block, k.waves>>();
      emit<rmsnorm_bwd_kernel<T, k.block, k.waves>>();
    });
  });
  amd_rows<layernorm_fwd_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) {
      emit<layernorm_fwd_kernel<decltype(t), k.block, k.waves>, k.min_programs>();
    });
  });
  amd_rows<layernorm_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) {
      using T = decltype(t);
      emit<layernorm_bwd_lock_kernel<T, k.block, k.waves>>();
      emit<layernorm_bwd_twostage_kernel<T, k.block, k.waves>>();
    });
  });
  amd_rows<col_sum_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) { emit<col_sum_kernel<decltype(t), k.bm, k.bn, k.waves>>(); });
  });
  // RoPE: the key is the head dimension, which is also the kernel's block.
  [](auto... d) {
    (amd_rows<rope_configs, decltype(d)::value>([](auto c) {
       constexpr launch_config k = decltype(c)::value;
       constexpr int D = decltype(d)::value;
       each_dtype([](auto t) {
         using T = decltype(t);
         emit<rope_split_kernel<T, D, k.waves>>();
         emit<rope_merge_kernel<T, D, k.waves>>();
       });
     }),
     ...);
  }(std::integral_constant<int, 64>{}, std::integral_constant<int, 128>{});
  // Tiled products. matmul's key is the inputs' element size; c is the inputs' type or f32.
  each_dtype([](auto t) {
    using T = decltype(t);
    amd_rows<matmul_configs, sizeof(T)>([](auto c) {
      constexpr launch_config k = decltype(c)::value;
      emit<matmul_kernel<T, T, k.bm, k.bn, k.bk, k.group_m, k.waves, k.stages>, k.min_programs>();
      if constexpr (!std::is_same_v<T, float>)
        emit<matmul_kernel<T, float, k.bm, k.bn, k.bk, k.group_m, k.waves, k.stages>,
             k.min_programs>();
    });
  });
  amd_rows<matmul_bias_act_configs>([](auto c) {
    each_dtype([](auto t) {
      using T = decltype(t);
      [](auto... e) {
        (emit<matmul_bias_act_for<T, T, decltype(e)::value, decltype(c)::value>>(), ...);
      }(std::integral_constant<epilogue, epilogue::none>{},
        std::integral_constant<epilogue, epilogue::relu>{},
        std::integral_constant<epilogue, epilogue::silu>{},
        std::integral_constant<epilogue, epilogue::gelu_tanh>{});
    });
  });
  emit<zero_kernel>();
  amd_rows<matmul_splitk_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype(
        [](auto t) { emit<matmul_splitk_kernel<decltype(t), k.bm, k.bn, k.bk, k.waves>>(); });
  });
  amd_rows<conv2d_configs>([](auto c) {
    constexpr launch_config k = decltype(c)::value;
    each_dtype([](auto t) { emit<conv2d_kernel<decltype(t), k.bm, k.bn, k.bk, k.waves>>(); });
  });
  // Attention: the forward, the backward and the backward's dQ have a table per element size,
  // keyed by the head dimension (64 or 128); causal and not.
  [](auto... d) {
    (each_dtype([](auto t) {
       using T = decltype(t);
       constexpr int D = decltype(d)::value;
       amd_rows<attention_fwd_configs<sizeof(T)>, D>([](auto c) {
         constexpr launch_config k = decltype(c)::value;
         emit<attention_fwd_variant<T, D, k.bm, k.bn, false, k.waves, k.variant>::kernel,
              k.min_programs>();
         emit<attention_fwd_variant<T, D, k.bm, k.bn, true, k.waves, k.variant>::kernel,
              k.min_programs>();
       });
       amd_rows<attention_bwd_configs<sizeof(T)>, D>([](auto c) {
         constexpr launch_config k = decltype(c)::value;
         emit<attention_bwd_preprocess_kernel<T, D, k.bm, k.waves>>();
         emit<attention_bwd_dkdv_variant<T, D, k.bm, k.bn, false, k.waves, k.variant>::kernel,
              k.min_programs>();
         emit<attention_bwd_dkdv_variant<T, D, k.bm, k.bn, true, k.waves, k.variant>::kernel,
              k.min_programs>();
       });
       amd_rows<attention_bwd_dq_configs<sizeof(T)>, D>([](auto c) {
         constexpr launch_config k = decltype(c)::value;
         emit<attention_bwd_dq_variant<T, D, k.bm, k.bn, false, k.waves, k.variant>::kernel,
              k.min_programs>();
         emit<attention_bwd_dq_variant<T, D, k.bm, k.bn, true, k.waves, k.variant>::kernel,
              k.min_programs>();
       });
     }),
     ...);
  }(std::integral_constant<int, 64>{}, std::integral_constant<int, 128>{});
}

const int emitted = (all(), 0);

}  // namespace bv::gpu::coverage
