// A reader for the small part of Python's pickle format that plain data uses: the files
// `torch.cuda.memory._dump_snapshot` writes (pickle.dump of dicts, lists, tuples, strings,
// integers, floats, booleans and None, protocols 2 to 5). It builds a tree of PickleValue and
// never runs anything: every opcode that would import a name, call it or build an object
// (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, persistent ids, extensions) is
// refused, as is every opcode outside the subset, with its name and byte offset. Input is
// bounded (file size, number of values, nesting depth), a truncated stream or a stack that does
// not balance is an error, and a structure that would contain itself (a recursive reference
// through the memo) is refused: a container is final once it is placed in another or fetched
// from the memo, so the tree is finite and every walk over it ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "result.h"

namespace remat {

// Files are read whole; a snapshot of a long run with stack traces is tens of megabytes.
inline constexpr std::size_t kMaxPickleBytes = std::size_t{256} << 20;  // 256 MiB
// Each value costs about 130 bytes once read, so the largest file read takes about 2 GiB; a
// snapshot of 100,000 events with Python stacks holds a few million values. Memo entries are
// bounded by the same number.
inline constexpr std::size_t kMaxPickleValues = std::size_t{16} << 20;  // 16.8 million
inline constexpr int kMaxPickleDepth = 64;  // a snapshot nests 6 levels deep

struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

struct PickleValue {
    enum class Kind { None, Bool, Int, Float, String, List, Tuple, Dict };
    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;  // Int (integers beyond 64 bits are refused)
    double real = 0.0;         // Float
    std::string text;          // String (UTF-8 as written)
    std::vector<PickleRef> items;                        // List, Tuple
    std::vector<std::pair<PickleRef, PickleRef>> entries;  // Dict, in insertion order
    // Reader bookkeeping: how deep the value nests (a scalar is 1), and whether a container
    // has been placed inside another or fetched from the memo (after which it may not change).
    int depth = 1;
    bool sealed = false;

    bool isNone() const { return kind == Kind::None; }
    bool isInt() const { return kind == Kind::Int; }
    bool isString() const { return kind == Kind::String; }
    bool isList() const { return kind == Kind::List || kind == Kind::Tuple; }
    bool isDict() const { return kind == Kind::Dict; }
    // The value under string key `key` of a dict (the last one written), or null.
    const PickleValue* get(std::string_view key) const;
};

std::string_view pickleKindName(PickleValue::Kind k);

// Parses `bytes` (the whole file). `origin` starts every message: "ORIGIN: pickle: what is
// wrong at byte N".
Result<PickleRef> parsePickle(std::string_view bytes, const std::string& origin,
                              std::size_t maxValues = kMaxPickleValues,
                              int maxDepth = kMaxPickleDepth);

// Reads `path` (a regular file of at most kMaxPickleBytes) and parses it.
Result<PickleRef> readPickleFile(const std::string& path);

}  // namespace remat
