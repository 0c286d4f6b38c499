#include "plots.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "options.hpp"
#include "process.hpp"

namespace braid::bench {

namespace {

// Configuration fields that split a panel's rows into separate lines when they vary.
const std::vector<std::string>& configuration_fields() {
  static const std::vector<std::string> fields = {"distribution", "size_bytes", "threads", "pages", "group", "keys"};
  return fields;
}

std::string text_of(const result_row& row, const std::string& field) {
  const field_value* value = row.find(field);
  if (value == nullptr) return "";
  if (field == "size_bytes") {
    if (const auto* bytes = std::get_if<std::int64_t>(value)) return format_bytes(static_cast<std::size_t>(*bytes));
  }
  return to_text(*value);
}

// A gnuplot single-quoted string (no escapes but '' for ').
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

template <class Rows>
std::vector<std::string> distinct_values(const Rows& rows, const std::string& field) {
  std::vector<std::string> values;
  for (const result_row* row : rows) {
    const std::string value = text_of(*row, field);
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

struct series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), ascending x
  std::vector<std::pair<double, double>> points2; // (x, y2)
  std::optional<double> constant;                 // no x: a horizontal line
  std::optional<double> constant2;
};

std::vector<series> series_of(const std::vector<const result_row*>& rows, const plot_axes& axes) {
  // Fields that name a line: the requested ones plus any configuration field that varies.
  std::vector<std::string> naming = axes.series;
  for (const std::string& field : configuration_fields()) {
    if (field == axes.x || std::find(naming.begin(), naming.end(), field) != naming.end()) continue;
    if (distinct_values(rows, field).size() > 1) naming.push_back(field);
  }
  std::vector<series> all;
  for (const result_row* row : rows) {
    const std::optional<double> y = row->number(axes.y);
    const std::optional<double> y2 = axes.y2.empty() ? std::nullopt : row->number(axes.y2);
    if (!y && !y2) continue;
    std::string name;
    for (const std::string& field : naming) {
      const std::string value = text_of(*row, field);
      if (value.empty()) continue;
      name += (name.empty() ? "" : " ") + (field == "technique" || field == "distribution" ? value : field + "=" + value);
    }
    auto found = std::find_if(all.begin(), all.end(), [&](const series& s) { return s.name == name; });
    if (found == all.end()) {
      all.push_back({name, {}, {}, {}, {}});
      found = all.end() - 1;
    }
    const std::optional<double> x = row->number(axes.x);
    if (x) {
      if (y) found->points.emplace_back(*x, *y);
      if (y2) found->points2.emplace_back(*x, *y2);
    } else {
      if (y) found->constant = y;
      if (y2) found->constant2 = y2;
    }
  }
  for (series& s : all) {
    std::sort(s.points.begin(), s.points.end());
    std::sort(s.points2.begin(), s.points2.end());
  }
  return all;
}

std::string label_of(const std::string& label, const std::string& field) {
  if (!label.empty()) return label;
  if (field == "size_bytes") return "data size";
  if (field == "mops") return "throughput (M operations/s)";
  if (field == "group") return "group size (operations in flight)";
  return field;
}

}  // namespace

std::string swept_field(const std::vector<result_row>& rows) {
  for (const char* field : {"group", "size_bytes", "threads", "chains", "keys"}) {
    std::vector<std::string> values;
    for (const result_row& row : rows) {
      const field_value* value = row.find(field);
      if (value == nullptr) continue;
      const std::string text = to_text(*value);
      if (std::find(values.begin(), values.end(), text) == values.end()) values.push_back(text);
    }
    if (values.size() > 1) return field;
  }
  return "";
}

plot_axes resolve_axes(const plot_axes& axes, const std::vector<result_row>& rows) {
  plot_axes resolved = axes;
  if (resolved.x.empty()) {
    resolved.x = swept_field(rows);
    if (resolved.x == "size_bytes") resolved.log_x = true;
  }
  return resolved;
}

std::string gnuplot_script(const std::vector<result_row>& rows, const plot_axes& requested, const std::string& title,
                           const std::string& png_path) {
  const plot_axes axes = resolve_axes(requested, rows);
  if (axes.x.empty()) return "";
  std::vector<const result_row*> all;
  for (const result_row& row : rows) all.push_back(&row);
  // A sweep needs two x values at least; one configuration is a table, not a plot.
  std::vector<std::string> x_values = distinct_values(all, axes.x);
  std::erase(x_values, std::string());
  if (x_values.size() < 2) return "";
  const std::vector<std::string> panels = distinct_values(all, "panel");

  std::ostringstream data;
  std::ostringstream plots;
  std::size_t block = 0;
  bool anything = false;
  for (const std::string& panel_label : panels) {
    std::vector<const result_row*> members;
    for (const result_row* row : all) {
      if (text_of(*row, "panel") == panel_label) members.push_back(row);
    }
    const std::vector<series> lines = series_of(members, axes);
    std::ostringstream commands;
    std::string separator;
    for (const series& line : lines) {
      auto add_points = [&](const std::vector<std::pair<double, double>>& points, const char* axis, const std::string& name,
                            const char* style) {
        if (points.empty()) return;
        const std::string block_name = "$data" + std::to_string(block++);
        data << block_name << " << EOD\n";
        for (const auto& [x, y] : points) data << x << ' ' << y << '\n';
        data << "EOD\n";
        commands << separator << block_name << " using 1:2 axes " << axis << " with " << style << " title "
                 << quoted(name);
        separator = ", \\\n     ";
        anything = true;
      };
      add_points(line.points, "x1y1", line.name, "linespoints");
      add_points(line.points2, "x1y2", line.name + (axes.y2.empty() ? "" : " (" + label_of(axes.y2_label, axes.y2) + ")"),
                 "linespoints dashtype 2");
      if (line.constant) {
        commands << separator << *line.constant << " axes x1y1 with lines dashtype 3 title " << quoted(line.name);
        separator = ", \\\n     ";
      }
      if (line.constant2) {
        commands << separator << *line.constant2 << " axes x1y2 with lines dashtype 3 title "
                 << quoted(line.name + " (" + label_of(axes.y2_label, axes.y2) + ")");
        separator = ", \\\n     ";
      }
    }
    if (separator.empty()) continue;
    plots << "set title " << quoted(panel_label.empty() ? title : panel_label) << "\n";
    plots << "plot " << commands.str() << "\n";
  }
  if (!anything) return "";

  const std::size_t panel_count = std::max<std::size_t>(panels.size(), 1);
  const std::size_t columns = panel_count == 1 ? 1 : 2;
  const std::size_t plot_rows = (panel_count + columns - 1) / columns;
  std::ostringstream script;
  script << "# braid-bench plot: " << title << "\n"
         << data.str()
         << "set terminal pngcairo noenhanced size " << 720 * columns << "," << 480 * plot_rows << " font ',10'\n"
         << "set output " << quoted(png_path) << "\n"
         << "set grid\nset key top left font ',9'\n"
         << "set xlabel " << quoted(label_of(axes.x_label, axes.x)) << "\n"
         << "set ylabel " << quoted(label_of(axes.y_label, axes.y)) << "\n"
         << "set yrange [0:*]\n";
  if (axes.log_x) {
    script << "set logscale x 2\n";
    if (axes.x == "size_bytes") script << "set format x '%.0b %BiB'\n";
  }
  if (axes.log_y) script << "set logscale y\nset yrange [*:*]\n";
  if (!axes.y2.empty()) {
    script << "set y2label " << quoted(label_of(axes.y2_label, axes.y2)) << "\nset y2tics\nset ytics nomirror\n"
           << "set y2range [0:*]\n";
  }
  if (panel_count > 1) script << "set multiplot layout " << plot_rows << "," << columns << " title " << quoted(title) << "\n";
  script << plots.str();
  if (panel_count > 1) script << "unset multiplot\n";
  return script.str();
}

bool gnuplot_available() { return program_on_path("gnuplot"); }

bool render_plot(const std::string& script, const std::string& script_path, std::string& problem) {
  {
    std::ofstream file(script_path);
    file << script;
    if (!file) {
      problem = "could not write " + script_path;
      return false;
    }
  }
  if (!gnuplot_available()) {
    problem = "gnuplot not found (install gnuplot-nox): no plots; CSV and JSON lines are written";
    return false;
  }
  const program_result result = run_program({"gnuplot", script_path});
  if (!result.started || result.exit_status != 0) {
    const std::string first_line = result.output.substr(0, result.output.find('\n'));
    problem = "gnuplot failed on " + script_path + (first_line.empty() ? "" : ": " + first_line);
    return false;
  }
  return true;
}

}  // namespace braid::bench
