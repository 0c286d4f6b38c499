// The IMLP kernel language (Cimple's statement language, Kiriansky et al., PACT'18) and its
// generator: a kernel is written once as a chain of builder calls,
//
//   Coroutine("binary_search_tree_find")
//       .Result("std::optional<Value>").SharedArg("const Node*", "root").Arg("Key", "key")
//       .Variable("const Node*", "n")
//       .Body(Assign("n", "root").
//             While("n != nullptr").Do(
//                 Prefetch("n").Yield("at_node").
//                 If("n->key == key").Then(Return("n->value")).
//                 Assign("n", "n->child[key > n->key]")).
//             Return("std::nullopt"));
//
// and generate() writes one C++ header holding, from that one description,
//   plain          the routine with every Yield and Prefetch dropped (baseline and oracle)
//   step           the dynamic state machine: a switch over named states (Duff's device)
//   step_goto      the same machine dispatched by computed goto (GCC / Clang)
//   step_at<S>     the machine entered at a compile-time state S (no dispatch at all)
//   super_step_static / super_step_hybrid
//                  one round over all contexts: a for loop per stage (static), or a loop per
//                  static stage and one switch-dispatched loop over the rest (hybrid)
//   aos<W> / soa<W>  the contexts of W coroutines, array of structs or struct of arrays,
//                  reached by the same accessors, so the layout never shows in the kernel.
// A step hands a Return's value to a sink, sink(slots, i, value) (sink(slots, i) for a void
// kernel): by default keep_result, which stores it in the context (slots.result(i)); the pull
// schedules pass one that stores it where the task's result goes.
// The schedulers that drive these (dynamic refill, static batch, hybrid, push / pull, in-order
// and out-of-order drain) are braid/core/imlp_scheduler.hpp.
//
// Expressions and statements are opaque C++ text: the generator does not parse them, except to
// find the identifiers they mention (for the checks below) and to carry the kernel's comments
// over. Everything that lives across a Yield must be an Arg, a SharedArg or a Variable: these
// become context fields; every opaque statement is emitted inside its own braces, so a local it
// declares cannot outlive it. A step keeps a small trivially copyable field in a local and
// writes it back when it suspends (braid/core/detail/imlp_locals.hpp), so a field's address
// must not be kept across a Yield.
//
// A malformed kernel is rejected by generate() with an imlp::error naming the kernel file and
// line: a name declared twice, a local of an opaque statement used after a Yield, a Yield
// (or co_await / co_yield / return / a case label) written inside opaque text, an Assign / Load / Store /
// Variable target that is no Arg or Variable, Break / Continue outside a loop, a Then / Else /
// Do / Case without its If / While / Switch, a non-void kernel that can run off its end, a
// Yield name used twice or a Continue inside a Switch that yields.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

namespace braid::imlp {

struct location {
  std::string file;
  unsigned line = 0;
};

// What generate() throws for a malformed kernel: "file:line: message".
class error : public std::runtime_error {
 public:
  error(const location& where, const std::string& message)
      : std::runtime_error(where.file + ":" + std::to_string(where.line) + ": " + message), where_(where) {}
  [[nodiscard]] const location& where() const noexcept { return where_; }

 private:
  location where_;
};

enum class kind {
  stmt, variable, assign, prefetch, load, store, yield, if_, while_, do_while, switch_, break_, continue_,
  return_, call, invalid  // invalid: a builder call out of place (Then without If ...), reported by generate()
};

struct node;
using nodes = std::vector<node>;

struct node {
  imlp::kind kind = kind::stmt;
  location where;
  std::string text;    // statement text, condition, returned / prefetched / switched expression
  std::string target;  // Assign / Load / Store / Variable: the name or lvalue written
  std::string type;    // Variable
  std::string yield_name;  // Yield: the name of the state it resumes in ("" = numbered)
  bool yield_static = false;  // Yield: the stage after it runs as a static stage in a hybrid
  std::vector<std::string> arguments;  // Call
  nodes body;          // If: then; While / DoWhile: the loop body
  nodes otherwise;     // If: else
  std::vector<std::pair<std::string, nodes>> cases;  // Switch: (value or "" for default, body)
  bool open = false;   // If without Then, While without Do, DoWhile without While, Switch being built
};

// A sequence of statements, built by chaining. Every call records where it was written.
class block {
 public:
  using here = std::source_location;

  block& Stmt(std::string text, here at = here::current());
  block& Comment(std::string text, here at = here::current());
  block& Variable(std::string type, std::string name, std::string init = {}, here at = here::current());
  block& Assign(std::string target, std::string value, here at = here::current());
  block& Prefetch(std::string address, here at = here::current());
  // target = *address after a prefetch of address and a Yield (the address is evaluated twice).
  block& Load(std::string target, std::string address, here at = here::current());
  // *address = value after a prefetch for writing and a Yield.
  block& Store(std::string address, std::string value, here at = here::current());
  // Suspends: other coroutines run before this one resumes, in the state `name`.
  block& Yield(std::string name = {}, here at = here::current());
  // The same, the stage that follows run as a static stage (a for loop over all contexts) by the
  // hybrid backend. A YieldStatic right after a Prefetch suspends in every backend; one after no
  // Prefetch only splits stages for the static and hybrid loops (the hash of Cimple's hash probe,
  // so the loop can vectorize it): the dynamic step runs on through it.
  block& YieldStatic(std::string name = {}, here at = here::current());
  block& If(std::string condition, here at = here::current());
  block& Then(block body, here at = here::current());
  block& Else(block body, here at = here::current());
  block& While(std::string condition, here at = here::current());
  block& Do(block body, here at = here::current());
  block& DoWhile(block body, here at = here::current());  // then .While(condition)
  block& Switch(std::string value, here at = here::current());
  block& Case(std::string value, block body, here at = here::current());  // no fall-through
  block& Default(block body, here at = here::current());
  block& Break(here at = here::current());
  block& Continue(here at = here::current());
  block& Return(std::string value = {}, here at = here::current());
  // Tail call: the Args take these values (in Arg order) and the coroutine restarts.
  block& Call(std::vector<std::string> arguments, here at = here::current());

  [[nodiscard]] const nodes& statements() const noexcept { return statements_; }

 private:
  node& add(imlp::kind k, here at);
  block& misplaced(const char* call, const std::string& message, here at);
  node* last_open(imlp::kind k);
  nodes statements_;
};

// Free functions that open a block, so that bodies read like the paper: Prefetch(p).Yield().
block Stmt(std::string text, block::here at = block::here::current());
block Comment(std::string text, block::here at = block::here::current());
block Variable(std::string type, std::string name, std::string init = {}, block::here at = block::here::current());
block Assign(std::string target, std::string value, block::here at = block::here::current());
block Prefetch(std::string address, block::here at = block::here::current());
block Load(std::string target, std::string address, block::here at = block::here::current());
block Store(std::string address, std::string value, block::here at = block::here::current());
block Yield(std::string name = {}, block::here at = block::here::current());
block If(std::string condition, block::here at = block::here::current());
block While(std::string condition, block::here at = block::here::current());
block DoWhile(block body, block::here at = block::here::current());
block Switch(std::string value, block::here at = block::here::current());
block Break(block::here at = block::here::current());
block Continue(block::here at = block::here::current());
block Return(std::string value = {}, block::here at = block::here::current());
block Call(std::vector<std::string> arguments, block::here at = block::here::current());

struct declaration {
  std::string type;
  std::string name;
  location where;
};

// One kernel: its signature, its body and what the header around it needs.
class coroutine {
 public:
  using here = std::source_location;
  explicit coroutine(std::string name, here at = here::current());

  coroutine& Doc(std::string text);                 // the header comment of the generated struct
  coroutine& Template(std::string parameters);      // "class Node, class Key" (after the prefetch hint)
  coroutine& Include(std::string header);           // "<optional>" or "braid/core/..." (quoted for you)
  coroutine& Result(std::string type, here at = here::current());
  coroutine& Arg(std::string type, std::string name, here at = here::current());
  coroutine& SharedArg(std::string type, std::string name, here at = here::current());
  coroutine& Variable(std::string type, std::string name, here at = here::current());
  coroutine& Body(block body, here at = here::current());

  // The generated header's text; throws imlp::error for a malformed kernel. `source_root`
  // is cut from the front of kernel file names in the generated comments.
  [[nodiscard]] std::string generate(const std::string& source_root = {}) const;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const location& where() const noexcept { return where_; }

 private:
  friend class emitter;
  std::string name_, doc_, template_parameters_, result_ = "void";
  location where_, body_where_;
  std::vector<std::string> includes_;
  std::vector<declaration> args_, shared_, variables_;
  nodes body_;
  bool has_body_ = false;
};

// The paper's entry point: Coroutine("name").Result(...).Arg(...).Body(...).
inline coroutine Coroutine(std::string name, coroutine::here at = coroutine::here::current()) {
  return coroutine(std::move(name), at);
}

// Kernels register themselves (one per kernel file) for the generator program.
using kernel_factory = std::function<coroutine()>;
std::map<std::string, kernel_factory>& registry();
struct registrar {
  registrar(const std::string& name, kernel_factory make) { registry().emplace(name, std::move(make)); }
};

}  // namespace braid::imlp

// In a kernel file: BRAID_IMLP_KERNEL(name) { return Coroutine("name")...; }
#define BRAID_IMLP_KERNEL(name)                                                                   \
  static ::braid::imlp::coroutine braid_imlp_kernel_##name();                                     \
  static const ::braid::imlp::registrar braid_imlp_registrar_##name(#name, &braid_imlp_kernel_##name); \
  static ::braid::imlp::coroutine braid_imlp_kernel_##name()
