#include "headline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "braid/index/technique.hpp"
#include "experiment.hpp"
#include "options.hpp"
#include "registry.hpp"

namespace braid::bench {

namespace {

std::string text_of(const result_row& row, const std::string& field) {
  const field_value* value = row.find(field);
  return value == nullptr ? std::string() : to_text(*value);
}

double throughput(const result_row* row) { return row == nullptr ? 0 : row->number("mops").value_or(0); }

// The faster of two rows by throughput (either may be null).
const result_row* faster(const result_row* a, const result_row* b) {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  return throughput(b) > throughput(a) ? b : a;
}

}  // namespace

headline_registration::headline_registration(headline_entry entry) {
  register_sorted(std::move(entry), [](const headline_entry& a, const headline_entry& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
}

headline_registration::headline_registration(const figure_registration& of, headline_entry entry)
    : headline_registration([&] {
        entry.figure = of.name;
        return std::move(entry);
      }()) {}

const std::vector<headline_entry>& headline_entries() { return registered<headline_entry>(); }

std::string over_allowance_message(const headline_entry& entry, double seconds, double allowance) {
  std::string message = entry.name + " took " + format_duration(seconds);
  if (allowance > 0) {
    return message + ", over its allowance of " + format_duration(allowance) + " (budget " +
           format_duration(entry.budget_seconds) + " plus what earlier parts left)";
  }
  // No allowance is left: say by how much earlier parts overran (format_duration has no
  // negative durations).
  return message + " with no allowance left: earlier parts overran by " +
         format_duration(entry.budget_seconds - allowance) + ", more than its budget of " +
         format_duration(entry.budget_seconds);
}

const std::vector<std::string>& structure_columns() {
  static const std::vector<std::string> columns = {
      "structure", "residency", "size",    "best",           "group",           "best_mops",         "naive_mops",
      "peer",      "peer_mops", "speedup_vs_naive", "speedup_vs_peer", "coro_vs_amac", "peer_compares",
      "roofline_fraction", "naive_roofline_fraction"};
  return columns;
}

const std::vector<std::string>& machine_columns() {
  static const std::vector<std::string> columns = {"what", "value", "unit", "source"};
  return columns;
}

headline_summary compare_with_naive_and_peers(std::string baseline, std::vector<std::string> peers) {
  return compare_with_naive_and_peers(headline_comparison{.baselines = {std::move(baseline)}, .peers = std::move(peers)});
}

headline_summary compare_with_naive_and_peers(headline_comparison comparison) {
  return [comparison = std::move(comparison)](const std::vector<result_row>& rows, const std::string& name) {
    struct line {
      std::string split;
      std::string label;
      std::string residency;
      const result_row* best = nullptr;
      const result_row* naive = nullptr;
      const result_row* peer = nullptr;
      const result_row* coro = nullptr;  // the fastest `coro` and `amac` rows, for coro_vs_amac
      const result_row* amac = nullptr;
      std::size_t size = 0;
    };
    auto listed = [](const std::vector<std::string>& names, const std::string& technique) {
      return std::find(names.begin(), names.end(), technique) != names.end();
    };
    std::vector<std::string> order;  // line keys in first-seen order
    std::map<std::string, line> lines;
    for (const result_row& row : rows) {
      if (!row.number("mops")) continue;
      std::string split;
      for (const std::string& field : comparison.split_by) {
        const std::string value = text_of(row, field);
        if (!value.empty()) split += (split.empty() ? "" : ", ") + value;
      }
      const std::string residency = text_of(row, "residency");
      const std::string key = split + '\n' + residency;
      if (!lines.contains(key)) {
        order.push_back(key);
        lines[key].split = split;
        lines[key].label = split.empty() ? name : name + " (" + split + ")";
        lines[key].residency = residency;
      }
      line& current = lines[key];
      current.size = std::max(current.size, static_cast<std::size_t>(row.number("size_bytes").value_or(0)));
      const std::string technique = text_of(row, "technique");
      if (listed(comparison.baselines, technique)) current.naive = faster(current.naive, &row);
      else if (listed(comparison.peers, technique)) current.peer = faster(current.peer, &row);
      else current.best = faster(current.best, &row);
      if (technique == to_string(braid::technique::coro)) current.coro = faster(current.coro, &row);
      if (technique == to_string(braid::technique::amac)) current.amac = faster(current.amac, &row);
    }
    // Splits in first-seen order; within one, DRAM-resident first: that is where interleaving
    // is meant to win.
    std::vector<std::string> labels;
    for (const std::string& key : order) {
      if (std::find(labels.begin(), labels.end(), lines[key].label) == labels.end()) labels.push_back(lines[key].label);
    }
    auto rank = [&](const std::string& key) {
      const line& current = lines[key];
      const auto label = std::find(labels.begin(), labels.end(), current.label) - labels.begin();
      return std::tuple(label, current.residency != "dram", current.residency);
    };
    std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    std::vector<result_row> out;
    for (const std::string& key : order) {
      const line& current = lines[key];
      if (current.best == nullptr && current.naive == nullptr) continue;
      result_row summary;
      summary.set("structure", current.label)
          .set("residency", current.residency.empty() ? std::string("-") : current.residency);
      if (current.size != 0) summary.set("size", format_bytes(current.size));
      if (current.best != nullptr) {
        summary.set("best", text_of(*current.best, "technique"));
        if (const field_value* group = current.best->find("group")) summary.set("group", *group);
        summary.set("best_mops", throughput(current.best));
      }
      if (current.naive != nullptr) summary.set("naive_mops", throughput(current.naive));
      if (current.peer != nullptr) {
        summary.set("peer", text_of(*current.peer, "technique")).set("peer_mops", throughput(current.peer));
      }
      if (current.best != nullptr && current.naive != nullptr && throughput(current.naive) > 0) {
        summary.set("speedup_vs_naive", throughput(current.best) / throughput(current.naive));
      }
      if (current.best != nullptr && current.peer != nullptr && throughput(current.peer) > 0) {
        summary.set("speedup_vs_peer", throughput(current.best) / throughput(current.peer));
      }
      if (current.coro != nullptr && current.amac != nullptr && throughput(current.amac) > 0) {
        summary.set("coro_vs_amac", throughput(current.coro) / throughput(current.amac));
      }
      if (current.peer != nullptr) {
        const auto special = comparison.peer_compares_for.find(current.split);
        summary.set("peer_compares",
                    special != comparison.peer_compares_for.end() ? special->second : comparison.peer_compares);
      }
      if (current.best != nullptr) {
        if (const auto fraction = current.best->number("roofline_fraction")) summary.set("roofline_fraction", *fraction);
      }
      if (current.naive != nullptr) {
        if (const auto fraction = current.naive->number("roofline_fraction")) summary.set("naive_roofline_fraction", *fraction);
      }
      out.push_back(std::move(summary));
    }
    return out;
  };
}

headline_summary report_facts(std::vector<machine_fact> facts) {
  return [facts = std::move(facts)](const std::vector<result_row>& rows, const std::string& name) {
    std::vector<result_row> out;
    for (const machine_fact& fact : facts) {
      const std::optional<extent> value = statistic_of(rows, fact.where, fact.field, fact.computed, fact.best_by);
      if (!value) continue;
      result_row line;
      line.set("what", fact.what);
      // Counts (chains, bytes) print as integers.
      if (value->high == std::floor(value->high) && std::abs(value->high) < 1e15) {
        line.set("value", static_cast<std::int64_t>(value->high));
      } else {
        line.set("value", value->high);
      }
      line.set("unit", fact.unit).set("source", name);
      out.push_back(std::move(line));
    }
    return out;
  };
}

}  // namespace braid::bench
