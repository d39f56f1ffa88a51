#include "pickle_reader.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "json_input.h"
#include "text.h"

namespace remat {

const PickleValue* PickleValue::get(std::string_view key) const {
    if (kind != Kind::Dict) return nullptr;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
        if (it->first->kind == Kind::String && it->first->text == key) return it->second.get();
    return nullptr;
}

std::string_view pickleKindName(PickleValue::Kind k) {
    switch (k) {
    case PickleValue::Kind::None: return "None";
    case PickleValue::Kind::Bool: return "bool";
    case PickleValue::Kind::Int: return "int";
    case PickleValue::Kind::Float: return "float";
    case PickleValue::Kind::String: return "str";
    case PickleValue::Kind::List: return "list";
    case PickleValue::Kind::Tuple: return "tuple";
    case PickleValue::Kind::Dict: return "dict";
    }
    return "?";
}

namespace {

// Opcodes that would run code or build arbitrary objects, with what they do.
const char* refusedOpcode(unsigned char op) {
    switch (op) {
    case 'c': return "GLOBAL imports a Python name";
    case 0x93: return "STACK_GLOBAL imports a Python name";
    case 'R': return "REDUCE calls a Python object";
    case 'b': return "BUILD sets an object's state";
    case 'i': return "INST builds an object of a class";
    case 'o': return "OBJ builds an object of a class";
    case 0x81: return "NEWOBJ builds an object of a class";
    case 0x92: return "NEWOBJ_EX builds an object of a class";
    case 'P': return "PERSID loads a persistent object";
    case 'Q': return "BINPERSID loads a persistent object";
    case 0x82: case 0x83: case 0x84: return "EXT1/EXT2/EXT4 loads a registered extension";
    default: return nullptr;
    }
}

constexpr const char* kChangesSealed =
    " changes a container already placed or referenced elsewhere (a recursive structure is not "
    "read)";

class Parser {
public:
    Parser(std::string_view b, const std::string& origin, std::size_t maxValues, int maxDepth)
        : m_b(b), m_origin(origin), m_maxValues(maxValues), m_maxDepth(maxDepth) {}

    Result<PickleRef> run() {
        if (m_b.size() < 2 || static_cast<unsigned char>(m_b[0]) != 0x80)
            return fail(0, "not a pickle of protocol 2 or later (it must start with the PROTO "
                           "opcode 0x80; pickle.dump writes protocol 4 or 5)");
        while (true) {
            if (m_pos >= m_b.size()) return fail(m_pos, "truncated: the stream ends before STOP");
            const std::size_t at = m_pos;
            const auto op = static_cast<unsigned char>(m_b[m_pos++]);
            if (const char* why = refusedOpcode(op))
                return fail(at, std::string(why) + "; only plain data (dicts, lists, tuples, "
                                "strings, numbers, booleans, None) is read, nothing is executed");
            Status s = step(op, at);
            if (!s) return s.error();
            if (m_done) break;
        }
        if (m_stack.size() != 1 || !m_marks.empty())
            return fail(m_pos - 1, "STOP with " + std::to_string(m_stack.size()) +
                                       " values and " + std::to_string(m_marks.size()) +
                                       " marks on the stack (expected one value)");
        if (m_pos != m_b.size())
            return fail(m_pos, std::to_string(m_b.size() - m_pos) + " bytes after STOP");
        return m_stack.back();
    }

private:
    Error fail(std::size_t at, const std::string& what) const {
        return makeError(m_origin + ": pickle: byte " + std::to_string(at) + ": " + what);
    }

    Status need(std::size_t n, std::size_t at, const char* name) const {
        if (m_b.size() - m_pos < n)
            return fail(at, std::string("truncated: ") + name + " needs " + std::to_string(n) +
                                " more bytes, " + std::to_string(m_b.size() - m_pos) + " left");
        return Ok{};
    }
    std::uint64_t readLE(std::size_t n) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i)
            v |= std::uint64_t(static_cast<unsigned char>(m_b[m_pos + i])) << (8 * i);
        m_pos += n;
        return v;
    }

    Result<PickleRef> make(PickleValue::Kind k, std::size_t at) {
        if (++m_values > m_maxValues)
            return fail(at, "more than " + std::to_string(m_maxValues) + " values");
        auto v = std::make_shared<PickleValue>();
        v->kind = k;
        return v;
    }
    Status push(Result<PickleRef> v) {
        if (!v) return v.error();
        m_stack.push_back(std::move(*v));
        return Ok{};
    }
    Result<PickleRef> pop(std::size_t at, const char* name) {
        const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
        if (m_stack.size() <= floor)
            return fail(at, std::string(name) + " on an empty stack");
        PickleRef v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    // Places `child` inside `parent`: the child is final from now on, and the parent's depth
    // grows with it.
    Status adopt(PickleValue& parent, PickleValue& child, std::size_t at) {
        child.sealed = true;
        if (child.depth + 1 > parent.depth) parent.depth = child.depth + 1;
        if (parent.depth > m_maxDepth)
            return fail(at, "nested deeper than " + std::to_string(m_maxDepth) + " levels");
        return Ok{};
    }
    Result<PickleRef> container(std::size_t below, std::size_t at, const char* name,
                                PickleValue::Kind want) {
        if (m_stack.size() < below + 1) return fail(at, std::string(name) + ": no container");
        PickleRef& c = m_stack[m_stack.size() - 1 - below];
        if (c->kind != want)
            return fail(at, std::string(name) + " on a " + std::string(pickleKindName(c->kind)) +
                                ", expected a " + std::string(pickleKindName(want)));
        if (c->sealed) return fail(at, std::string(name) + kChangesSealed);
        return c;
    }
    Result<std::size_t> popMark(std::size_t at, const char* name) {
        if (m_marks.empty()) return fail(at, std::string(name) + " without a MARK");
        std::size_t m = m_marks.back();
        m_marks.pop_back();
        return m;
    }
    Status memoPut(std::uint64_t index, std::size_t at) {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back()))
            return fail(at, "memo store with nothing on the stack");
        if (m_memo.size() >= m_maxValues && !m_memo.count(index))
            return fail(at, "more than " + std::to_string(m_maxValues) + " memo entries");
        m_memo[index] = m_stack.back();
        return Ok{};
    }
    Status memoGet(std::uint64_t index, std::size_t at) {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            return fail(at, "memo entry " + std::to_string(index) + " was never stored");
        // Python writes a reference only to a finished object (or, in a recursive structure,
        // to one being built): from now on the container may not change, which also refuses
        // every cycle (closing one needs a change to a container already referenced).
        it->second->sealed = true;
        m_stack.push_back(it->second);
        return Ok{};
    }
    Status string(std::size_t n, std::size_t at, const char* name) {
        if (Status s = need(n, at, name); !s) return s;
        auto v = make(PickleValue::Kind::String, at);
        if (!v) return v.error();
        (*v)->text.assign(m_b.substr(m_pos, n));
        m_pos += n;
        return push(std::move(v));
    }
    Status integer(std::int64_t i, std::size_t at) {
        auto v = make(PickleValue::Kind::Int, at);
        if (!v) return v.error();
        (*v)->integer = i;
        return push(std::move(v));
    }
    Status longInt(std::uint64_t n, std::size_t at, const char* name) {
        if (Status s = need(n, at, name); !s) return s;
        if (n > 8) return fail(at, std::string(name) + ": an integer of " + std::to_string(n) +
                                       " bytes does not fit in 64 bits");
        std::uint64_t u = n ? readLE(n) : 0;
        if (n > 0 && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~std::uint64_t{0} << (8 * n);
        return integer(static_cast<std::int64_t>(u), at);
    }
    Status tuple(std::size_t count, std::size_t at, const char* name) {
        const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
        if (m_stack.size() - floor < count)
            return fail(at, std::string(name) + " needs " + std::to_string(count) + " values");
        auto v = make(PickleValue::Kind::Tuple, at);
        if (!v) return v.error();
        for (std::size_t i = m_stack.size() - count; i < m_stack.size(); ++i) {
            if (Status s = adopt(**v, *m_stack[i], at); !s) return s;
            (*v)->items.push_back(std::move(m_stack[i]));
        }
        m_stack.resize(m_stack.size() - count);
        return push(std::move(v));
    }

    Status step(unsigned char op, std::size_t at) {
        switch (op) {
        case 0x80: {  // PROTO
            if (Status s = need(1, at, "PROTO"); !s) return s;
            const int proto = static_cast<unsigned char>(m_b[m_pos++]);
            if (at != 0 || proto < 2 || proto > 5)
                return fail(at, "PROTO " + std::to_string(proto) +
                                    (at != 0 ? " in the middle of the stream"
                                             : ": only protocols 2 to 5 are read"));
            return Ok{};
        }
        case 0x95: {  // FRAME: a length prefix for buffering; the content follows inline
            if (Status s = need(8, at, "FRAME"); !s) return s;
            const std::uint64_t n = readLE(8);
            if (n > m_b.size() - m_pos)
                return fail(at, "truncated: FRAME of " + std::to_string(n) + " bytes, " +
                                    std::to_string(m_b.size() - m_pos) + " left");
            return Ok{};
        }
        case '.': m_done = true; return Ok{};  // STOP
        case '(':  // MARK
            if (m_marks.size() >= std::size_t(m_maxDepth))
                return fail(at, "more than " + std::to_string(m_maxDepth) + " open MARKs");
            m_marks.push_back(m_stack.size());
            return Ok{};
        case 'N': return push(make(PickleValue::Kind::None, at));
        case 0x88: case 0x89: {  // NEWTRUE, NEWFALSE
            auto v = make(PickleValue::Kind::Bool, at);
            if (!v) return v.error();
            (*v)->boolean = op == 0x88;
            return push(std::move(v));
        }
        case 'J': {  // BININT: 4-byte signed
            if (Status s = need(4, at, "BININT"); !s) return s;
            return integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(readLE(4))), at);
        }
        case 'K':  // BININT1
            if (Status s = need(1, at, "BININT1"); !s) return s;
            return integer(std::int64_t(readLE(1)), at);
        case 'M':  // BININT2
            if (Status s = need(2, at, "BININT2"); !s) return s;
            return integer(std::int64_t(readLE(2)), at);
        case 0x8a:  // LONG1
            if (Status s = need(1, at, "LONG1"); !s) return s;
            return longInt(readLE(1), at, "LONG1");
        case 0x8b: {  // LONG4
            if (Status s = need(4, at, "LONG4"); !s) return s;
            return longInt(readLE(4), at, "LONG4");
        }
        case 'G': {  // BINFLOAT: 8-byte big-endian IEEE double
            if (Status s = need(8, at, "BINFLOAT"); !s) return s;
            std::uint64_t u = 0;
            for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<unsigned char>(m_b[m_pos++]);
            auto v = make(PickleValue::Kind::Float, at);
            if (!v) return v.error();
            std::memcpy(&(*v)->real, &u, sizeof u);
            return push(std::move(v));
        }
        case 0x8c:  // SHORT_BINUNICODE
            if (Status s = need(1, at, "SHORT_BINUNICODE"); !s) return s;
            return string(readLE(1), at, "SHORT_BINUNICODE");
        case 'X':  // BINUNICODE
            if (Status s = need(4, at, "BINUNICODE"); !s) return s;
            return string(readLE(4), at, "BINUNICODE");
        case 0x8d:  // BINUNICODE8
            if (Status s = need(8, at, "BINUNICODE8"); !s) return s;
            return string(readLE(8), at, "BINUNICODE8");
        case '}': return push(make(PickleValue::Kind::Dict, at));   // EMPTY_DICT
        case ']': return push(make(PickleValue::Kind::List, at));   // EMPTY_LIST
        case ')': return push(make(PickleValue::Kind::Tuple, at));  // EMPTY_TUPLE
        case 0x85: return tuple(1, at, "TUPLE1");
        case 0x86: return tuple(2, at, "TUPLE2");
        case 0x87: return tuple(3, at, "TUPLE3");
        case 't': {  // TUPLE: the values since the last MARK
            auto m = popMark(at, "TUPLE");
            if (!m) return m.error();
            return tuple(m_stack.size() - *m, at, "TUPLE");
        }
        case 'a': {  // APPEND
            auto v = pop(at, "APPEND");
            if (!v) return v.error();
            auto c = container(0, at, "APPEND", PickleValue::Kind::List);
            if (!c) return c.error();
            if (Status s = adopt(**c, **v, at); !s) return s;
            (*c)->items.push_back(std::move(*v));
            return Ok{};
        }
        case 'e': {  // APPENDS: the values since the last MARK onto the list below it
            auto m = popMark(at, "APPENDS");
            if (!m) return m.error();
            if (*m == 0) return fail(at, "APPENDS: no list below the MARK");
            PickleRef list = m_stack[*m - 1];
            if (list->kind != PickleValue::Kind::List)
                return fail(at, "APPENDS on a " + std::string(pickleKindName(list->kind)) +
                                    ", expected a list");
            if (list->sealed) return fail(at, std::string("APPENDS") + kChangesSealed);
            for (std::size_t i = *m; i < m_stack.size(); ++i) {
                if (Status s = adopt(*list, *m_stack[i], at); !s) return s;
                list->items.push_back(std::move(m_stack[i]));
            }
            m_stack.resize(*m);
            return Ok{};
        }
        case 's': {  // SETITEM
            auto value = pop(at, "SETITEM");
            if (!value) return value.error();
            auto key = pop(at, "SETITEM");
            if (!key) return key.error();
            auto c = container(0, at, "SETITEM", PickleValue::Kind::Dict);
            if (!c) return c.error();
            if (Status s = adopt(**c, **key, at); !s) return s;
            if (Status s = adopt(**c, **value, at); !s) return s;
            (*c)->entries.emplace_back(std::move(*key), std::move(*value));
            return Ok{};
        }
        case 'u': {  // SETITEMS: key, value pairs since the last MARK
            auto m = popMark(at, "SETITEMS");
            if (!m) return m.error();
            if (*m == 0) return fail(at, "SETITEMS: no dict below the MARK");
            if ((m_stack.size() - *m) % 2 != 0)
                return fail(at, "SETITEMS with an odd number of values (a key without a value)");
            PickleRef dict = m_stack[*m - 1];
            if (dict->kind != PickleValue::Kind::Dict)
                return fail(at, "SETITEMS on a " + std::string(pickleKindName(dict->kind)) +
                                    ", expected a dict");
            if (dict->sealed) return fail(at, std::string("SETITEMS") + kChangesSealed);
            for (std::size_t i = *m; i < m_stack.size(); i += 2) {
                if (Status s = adopt(*dict, *m_stack[i], at); !s) return s;
                if (Status s = adopt(*dict, *m_stack[i + 1], at); !s) return s;
                dict->entries.emplace_back(std::move(m_stack[i]), std::move(m_stack[i + 1]));
            }
            m_stack.resize(*m);
            return Ok{};
        }
        case 0x94: return memoPut(m_memo.size(), at);  // MEMOIZE
        case 'q':  // BINPUT
            if (Status s = need(1, at, "BINPUT"); !s) return s;
            return memoPut(readLE(1), at);
        case 'r':  // LONG_BINPUT
            if (Status s = need(4, at, "LONG_BINPUT"); !s) return s;
            return memoPut(readLE(4), at);
        case 'h':  // BINGET
            if (Status s = need(1, at, "BINGET"); !s) return s;
            return memoGet(readLE(1), at);
        case 'j':  // LONG_BINGET
            if (Status s = need(4, at, "LONG_BINGET"); !s) return s;
            return memoGet(readLE(4), at);
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            return fail(at, std::string("opcode ") + hex +
                                " is not part of the plain-data subset read here (protocol 2 to 5 "
                                "dicts, lists, tuples, strings, numbers, booleans, None)");
        }
        }
    }

    std::string_view m_b;
    const std::string& m_origin;
    std::size_t m_maxValues;
    int m_maxDepth;
    std::size_t m_pos = 0;  // PROTO at byte 0 goes through step() like any opcode
    std::size_t m_values = 0;
    bool m_done = false;
    std::vector<PickleRef> m_stack;
    std::vector<std::size_t> m_marks;
    std::unordered_map<std::uint64_t, PickleRef> m_memo;
};

}  // namespace

Result<PickleRef> parsePickle(std::string_view bytes, const std::string& origin,
                              std::size_t maxValues, int maxDepth) {
    Parser p(bytes, origin, maxValues, maxDepth);
    return p.run();
}

Result<PickleRef> readPickleFile(const std::string& path) {
    auto bytes = readInputFile(path, "PyTorch memory snapshot", kMaxPickleBytes);
    if (!bytes) return bytes.error();
    return parsePickle(*bytes, printable(path));
}

}  // namespace remat
