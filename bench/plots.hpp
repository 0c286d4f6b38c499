// PNG plots of result rows, drawn by gnuplot (Debian's gnuplot-nox).
//
// One plot per figure: y against x, one line per series (technique, by default), one panel of a
// multiplot per figure panel (the rows' `panel` field), like the papers' multi-panel figures.
// Series without the x field (a naive loop that does not depend on the group size) are drawn
// as horizontal dashed lines at their value. The script carries its data inline, so it can be
// rerun or edited by hand: DIR/NAME.gp beside DIR/NAME.png.
#pragma once

#include <string>
#include <vector>

#include "figures.hpp"
#include "results.hpp"

namespace braid::bench {

// The field a sweep varies: the first of group, size_bytes, threads, chains, keys with more
// than one distinct value among the rows; empty when none does.
std::string swept_field(const std::vector<result_row>& rows);

// Axes with an empty x replaced by the swept field (log scale for sizes); empty x when
// nothing is swept (no plot).
plot_axes resolve_axes(const plot_axes& axes, const std::vector<result_row>& rows);

// The gnuplot script drawing `rows` on `axes` into `png_path`. Empty when there is nothing to
// draw (no row with both x and y, or no swept field).
std::string gnuplot_script(const std::vector<result_row>& rows, const plot_axes& axes, const std::string& title,
                           const std::string& png_path);

// Whether a `gnuplot` program is on the PATH.
bool gnuplot_available();

// Writes `script_path` and runs gnuplot on it; returns false (with the reason in `problem`)
// when gnuplot is missing or fails.
bool render_plot(const std::string& script, const std::string& script_path, std::string& problem);

}  // namespace braid::bench
