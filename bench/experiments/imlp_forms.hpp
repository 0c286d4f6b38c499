// The generated (IMLP) lookups and scans in the forms multi_find and multi_scan do not choose:
// Cimple's B8 comparison of context layouts (SoA / AoS) and dispatch (switch / computed goto)
// under each schedule. Experiments run them as ablations, only when --technique names them; the
// one table below names them for every experiment.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "braid/core/imlp_scheduler.hpp"

namespace braid::bench {

// A layout and a dispatch of the generated contexts, as a type.
template <imlp_layout Layout, imlp_dispatch Dispatch>
struct imlp_form {
  static constexpr imlp_layout layout = Layout;
  static constexpr imlp_dispatch dispatch = Dispatch;
};

// The ablations' technique names, in the order with_imlp_ablation numbers them.
inline const std::vector<std::string> imlp_ablation_names = {"imlp-dynamic-aos", "imlp-dynamic-goto", "imlp-static-aos"};

// Calls run(imlp_form<Layout, Dispatch>{}, schedule) for ablation `which` of imlp_ablation_names.
template <class Run>
decltype(auto) with_imlp_ablation(std::size_t which, Run&& run) {
  switch (which) {
    case 0: return run(imlp_form<imlp_layout::aos, imlp_dispatch::switch_table>{}, imlp_schedule::dynamic);
    case 1: return run(imlp_form<imlp_layout::soa, imlp_dispatch::computed_goto>{}, imlp_schedule::dynamic);
    default: return run(imlp_form<imlp_layout::aos, imlp_dispatch::switch_table>{}, imlp_schedule::static_batch);
  }
}

}  // namespace braid::bench
