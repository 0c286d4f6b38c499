#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace braid::bench {

model_prediction predict_interleaving(const model_inputs& inputs) {
  auto require_positive = [](double value, const char* name) {
    if (!(value > 0) || !std::isfinite(value)) {
      throw std::invalid_argument(std::string("interleaving model: ") + name + " must be positive");
    }
  };
  require_positive(inputs.naive_ns_per_op, "naive time per operation");
  require_positive(inputs.group1_ns_per_op, "group-1 time per operation");
  require_positive(inputs.compute_ns_per_op, "compute time per operation");
  require_positive(inputs.misses_per_op, "misses per operation");
  if (inputs.compute_ns_per_op > inputs.naive_ns_per_op) {
    throw std::invalid_argument("interleaving model: the cache-resident time exceeds the naive time (no stall to hide)");
  }
  const double suspensions = inputs.suspensions_per_op > 0 ? inputs.suspensions_per_op : inputs.misses_per_op;
  if (suspensions < inputs.misses_per_op) {
    throw std::invalid_argument("interleaving model: fewer suspensions than misses per operation");
  }

  if (inputs.compute_group1_ns_per_op < 0 || !std::isfinite(inputs.compute_group1_ns_per_op)) {
    throw std::invalid_argument("interleaving model: the cache-resident group-1 time must not be negative");
  }
  const bool switch_from_compute = inputs.compute_group1_ns_per_op > 0;
  const double stall_total = inputs.naive_ns_per_op - inputs.compute_ns_per_op;
  const double switch_total = std::max(0.0, switch_from_compute ? inputs.compute_group1_ns_per_op - inputs.compute_ns_per_op
                                                                : inputs.group1_ns_per_op - inputs.naive_ns_per_op);

  model_prediction prediction;
  prediction.switch_from_compute = switch_from_compute;
  prediction.compute_ns_per_stage = inputs.compute_ns_per_op / suspensions;
  prediction.stall_ns_per_miss = stall_total / inputs.misses_per_op;
  prediction.switch_ns = switch_total / suspensions;
  prediction.target_ns = prediction.stall_ns_per_miss - prediction.switch_ns;
  prediction.stall_share = stall_total / inputs.naive_ns_per_op;
  prediction.switch_share = switch_total / inputs.naive_ns_per_op;
  const double per_stage = prediction.compute_ns_per_stage + prediction.switch_ns;
  prediction.minimum_group = prediction.target_ns > 0 ? prediction.target_ns / per_stage + 1 : 1;  // (3.2)
  // The smallest integer G >= minimum_group, tolerating rounding of an exact quotient.
  prediction.minimum_group_size = static_cast<unsigned>(std::ceil(prediction.minimum_group - 1e-9));
  prediction.speedup_max = inputs.naive_ns_per_op / (inputs.compute_ns_per_op + switch_total);  // (3.4)
  return prediction;
}

namespace {

// The fields that tell one configuration of a sweep from another.
constexpr const char* configuration_fields[] = {"panel", "structure", "size_bytes", "distribution", "threads", "pages"};

std::string configuration_key(const result_row& row) {
  std::string key;
  for (const char* field : configuration_fields) {
    if (const field_value* value = row.find(field)) key += std::string(field) + "=" + to_text(*value) + " ";
  }
  return key;
}

std::string text_of(const result_row& row, const std::string& field) {
  const field_value* value = row.find(field);
  return value == nullptr ? std::string() : to_text(*value);
}

}  // namespace

model_report evaluate_model(const std::vector<result_row>& rows, const model_request& request) {
  model_report report;
  if (request.techniques.empty()) return report;
  // Configurations in first-seen order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const result_row*>> by_configuration;
  for (const result_row& row : rows) {
    const std::string key = configuration_key(row);
    if (!by_configuration.contains(key)) order.push_back(key);
    by_configuration[key].push_back(&row);
  }
  for (const std::string& key : order) {
    const std::vector<const result_row*>& members = by_configuration[key];
    // The fastest baseline row that carries the model's inputs.
    const result_row* baseline = nullptr;
    for (const result_row* row : members) {
      if (text_of(*row, "technique") != request.baseline) continue;
      if (!row->number("compute_ns_per_op") || !row->number("misses_per_op") || !row->number("ns_per_op")) continue;
      if (baseline == nullptr || *row->number("ns_per_op") < *baseline->number("ns_per_op")) baseline = row;
    }
    if (baseline == nullptr) {
      report.skipped.push_back(key + ": no '" + request.baseline + "' row with compute_ns_per_op and misses_per_op");
      continue;
    }
    for (const std::string& technique : request.techniques) {
      const result_row* group_one = nullptr;
      const result_row* best = nullptr;
      for (const result_row* row : members) {
        if (text_of(*row, "technique") != technique || !row->number("ns_per_op")) continue;
        if (row->number("group") == 1.0) group_one = row;
        if (best == nullptr || *row->number("ns_per_op") < *best->number("ns_per_op")) best = row;
      }
      if (group_one == nullptr || best == nullptr) {
        report.skipped.push_back(key + ": no '" + technique + "' row at group 1");
        continue;
      }
      model_inputs inputs;
      inputs.naive_ns_per_op = *baseline->number("ns_per_op");
      inputs.compute_ns_per_op = *baseline->number("compute_ns_per_op");
      inputs.misses_per_op = *baseline->number("misses_per_op");
      inputs.suspensions_per_op = baseline->number("suspensions_per_op").value_or(0);
      inputs.group1_ns_per_op = *group_one->number("ns_per_op");
      inputs.compute_group1_ns_per_op = group_one->number("compute_group1_ns_per_op").value_or(0);
      model_prediction prediction;
      try {
        prediction = predict_interleaving(inputs);
      } catch (const std::invalid_argument& error) {
        report.skipped.push_back(key + technique + ": " + error.what());
        continue;
      }
      result_row out;
      for (const char* field : configuration_fields) {
        if (const field_value* value = baseline->find(field)) out.set(field, *value);
      }
      out.set("technique", technique)
          .set("naive_ns_per_op", inputs.naive_ns_per_op)
          .set("compute_ns_per_op", inputs.compute_ns_per_op)
          .set("group1_ns_per_op", inputs.group1_ns_per_op)
          .set("stall_share", prediction.stall_share)
          .set("stall_ns_per_miss", prediction.stall_ns_per_miss)
          .set("switch_ns", prediction.switch_ns)
          .set("switch_from", prediction.switch_from_compute ? "cache-resident group 1" : "group 1 minus naive")
          .set("predicted_group", static_cast<std::int64_t>(prediction.minimum_group_size))
          .set("measured_best_group", best->number("group") ? field_value{static_cast<std::int64_t>(*best->number("group"))}
                                                             : field_value{std::string("-")})
          .set("predicted_speedup_max", prediction.speedup_max)
          .set("measured_speedup_max", inputs.naive_ns_per_op / *best->number("ns_per_op"));
      report.rows.push_back(std::move(out));
    }
  }
  return report;
}

}  // namespace braid::bench
