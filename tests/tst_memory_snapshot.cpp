// The pickle reader (sim/pickle_reader.h) on hand-made streams of every opcode it reads and on
// hostile ones (truncated, deeply nested, unknown or code-running opcodes, recursive
// references), the PyTorch memory snapshot (sim/memory_snapshot.h) on the synthetic file of
// tools/make_synthetic_snapshot.py against the figures that script computed, its alignment with
// the predicted timeline of mlp-3x1024, and `remat simulate --snapshot` (text and --json).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis.h"
#include "device.h"
#include "lower.h"
#include "memory_snapshot.h"
#include "model_file.h"
#include "pickle_reader.h"

using namespace remat;
using json = nlohmann::json;

namespace {

const std::string kSnapDir = std::string(REMAT_TEST_DATA_DIR) + "/snapshots/";

std::string bytes(std::initializer_list<int> b) {
    std::string s;
    for (int c : b) s.push_back(char(c));
    return s;
}

Result<PickleRef> parse(const std::string& b) { return parsePickle(b, "t.pickle"); }

std::string errorOf(const std::string& b) {
    auto r = parse(b);
    return r ? std::string("(no error)") : r.error().message;
}

json readJson(const std::string& path) {
    std::ifstream f(path);
    return json::parse(f);
}

std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct Run {
    int exitCode = -1;
    QString out, err;
};
Run runCli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(REMAT_CLI_PATH), args);
    Run r;
    if (!p.waitForFinished(120000)) p.kill();
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

}  // namespace

class TestMemorySnapshot : public QObject {
    Q_OBJECT
private slots:
    void scalarsOfEveryOpcode();
    void containersAndMemo();
    void pythonWrittenProtocols();
    void refusesCode_data();
    void refusesCode();
    void hostile_data();
    void hostile();
    void everyTruncationFails();
    void limits();
    void syntheticCurves();
    void snapshotErrors();
    void alignWithPrediction();
    void cliOverlay();
};

void TestMemorySnapshot::scalarsOfEveryOpcode() {
    // PROTO 4, FRAME, MARK, then one scalar per opcode, TUPLE, STOP.
    std::string b = bytes({0x80, 4, 0x95, 0, 0, 0, 0, 0, 0, 0, 0, '('});
    b += bytes({'N', 0x88, 0x89});
    b += bytes({'J', 0xfb, 0xff, 0xff, 0xff});           // BININT -5
    b += bytes({'K', 200});                              // BININT1 200
    b += bytes({'M', 0x2c, 0x01});                       // BININT2 300
    b += bytes({0x8a, 8, 3, 0, 0, 0, 0, 0, 0x01, 0});    // LONG1 2^48 + 3 (an address)
    b += bytes({0x8a, 1, 0xff});                         // LONG1 -1
    b += bytes({0x8a, 0});                               // LONG1 0
    b += bytes({0x8b, 2, 0, 0, 0, 0x10, 0x27});          // LONG4 10000
    b += bytes({'G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0});     // BINFLOAT 1.5
    b += bytes({0x8c, 2}) + "ab";                        // SHORT_BINUNICODE
    b += bytes({'X', 3, 0, 0, 0}) + "\xc3\xa9z";         // BINUNICODE "éz"
    b += bytes({0x8d, 1, 0, 0, 0, 0, 0, 0, 0}) + "q";    // BINUNICODE8
    b += bytes({'t', '.'});
    auto r = parse(b);
    QVERIFY2(r, r ? "" : r.error().message.c_str());
    const PickleValue& t = **r;
    QCOMPARE(t.kind, PickleValue::Kind::Tuple);
    QCOMPARE(t.items.size(), std::size_t(14));
    QVERIFY(t.items[0]->isNone());
    QVERIFY(t.items[1]->kind == PickleValue::Kind::Bool && t.items[1]->boolean);
    QVERIFY(t.items[2]->kind == PickleValue::Kind::Bool && !t.items[2]->boolean);
    QCOMPARE(t.items[3]->integer, std::int64_t(-5));
    QCOMPARE(t.items[4]->integer, std::int64_t(200));
    QCOMPARE(t.items[5]->integer, std::int64_t(300));
    QCOMPARE(t.items[6]->integer, (std::int64_t(1) << 48) + 3);
    QCOMPARE(t.items[7]->integer, std::int64_t(-1));
    QCOMPARE(t.items[8]->integer, std::int64_t(0));
    QCOMPARE(t.items[9]->integer, std::int64_t(10000));
    QCOMPARE(t.items[10]->real, 1.5);
    QCOMPARE(t.items[11]->text, std::string("ab"));
    QCOMPARE(t.items[12]->text, std::string("\xc3\xa9z"));
    QCOMPARE(t.items[13]->text, std::string("q"));
}

void TestMemorySnapshot::containersAndMemo() {
    // {"a": [1, 2, 3], "b": ("x", "x" via BINGET), "c": () , "d": (1,), "e": (1, 2, 3)}
    std::string b = bytes({0x80, 2, '}', 'q', 0});                    // EMPTY_DICT, BINPUT 0
    b += bytes({0x8c, 1}) + "a" + bytes({']', 0x94});                  // "a", EMPTY_LIST, MEMOIZE
    b += bytes({'K', 1, 'a', '(', 'K', 2, 'K', 3, 'e', 's'});          // APPEND, APPENDS, SETITEM
    b += bytes({'(', 0x8c, 1}) + "b" + bytes({0x8c, 1}) + "x" + bytes({'r', 5, 0, 0, 0});
    b += bytes({'j', 5, 0, 0, 0, 0x86});                               // LONG_BINGET, TUPLE2
    b += bytes({0x8c, 1}) + "c" + bytes({')'});                        // EMPTY_TUPLE
    b += bytes({0x8c, 1}) + "d" + bytes({'K', 1, 0x85});               // TUPLE1
    b += bytes({0x8c, 1}) + "e" + bytes({'K', 1, 'K', 2, 'K', 3, 0x87});  // TUPLE3
    b += bytes({0x8c, 1}) + "f" + bytes({'h', 0});  // memo 0: the dict itself
    b += bytes({'u', '.'});
    // The last entry references the dict being built: a recursive structure, refused.
    QVERIFY2(errorOf(b).find("SETITEMS changes a container already placed or referenced "
                             "elsewhere (a recursive structure is not read)") != std::string::npos,
             errorOf(b).c_str());

    // Without the self-reference, "f" takes the finished list from the memo (index 1).
    b = b.substr(0, b.size() - 4) + bytes({'h', 1, 'u', '.'});
    auto r = parse(b);
    QVERIFY2(r, r ? "" : r.error().message.c_str());
    const PickleValue& d = **r;
    QVERIFY(d.isDict());
    QCOMPARE(d.entries.size(), std::size_t(6));
    const PickleValue* a = d.get("a");
    QVERIFY(a && a->kind == PickleValue::Kind::List && a->items.size() == 3);
    QCOMPARE(a->items[2]->integer, std::int64_t(3));
    const PickleValue* bb = d.get("b");
    QVERIFY(bb && bb->items.size() == 2 && bb->items[0].get() == bb->items[1].get());
    QCOMPARE(d.get("c")->items.size(), std::size_t(0));
    QCOMPARE(d.get("d")->items.size(), std::size_t(1));
    QCOMPARE(d.get("e")->items[2]->integer, std::int64_t(3));
    QVERIFY(d.get("f") == a);  // the same list, shared
    QVERIFY(d.get("missing") == nullptr);
}

void TestMemorySnapshot::pythonWrittenProtocols() {
    for (int proto : {2, 5}) {
        auto r = readPickleFile(kSnapDir + "plain-protocol" + std::to_string(proto) + ".pickle");
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        const PickleValue& d = **r;
        QCOMPARE(d.get("text")->text, std::string("h\xc3\xa9llo"));
        QCOMPARE(d.get("neg")->integer, std::int64_t(-5));
        QCOMPARE(d.get("big")->integer, (std::int64_t(1) << 40) + 3);
        QCOMPARE(d.get("negbig")->integer, -(std::int64_t(1) << 40));
        QCOMPARE(d.get("f")->real, 0.25);
        QVERIFY(d.get("t")->boolean);
        QVERIFY(d.get("n")->isNone());
        const PickleValue* l = d.get("list");
        QCOMPARE(l->items.size(), std::size_t(4));
        QCOMPARE(l->items[1]->integer, std::int64_t(300));
        QCOMPARE(l->items[2]->integer, std::int64_t(70000));
        QCOMPARE(l->items[3]->kind, PickleValue::Kind::Tuple);
        QCOMPARE(l->items[3]->items[1]->text, std::string("x"));
        const PickleValue* sh = d.get("shared");
        QVERIFY(sh->items[0].get() == sh->items[1].get());
    }
}

void TestMemorySnapshot::refusesCode_data() {
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QString>("expected");
    auto add = [](const char* name, const std::string& s, const char* msg) {
        QTest::newRow(name) << QByteArray(s.data(), qsizetype(s.size())) << QString(msg);
    };
    // pickle.dumps(os.system) style: GLOBAL 'os\nsystem\n', then REDUCE on a tuple.
    add("GLOBAL", bytes({0x80, 2, 'c'}) + "os\nsystem\n" + bytes({'.'}), "byte 2: GLOBAL imports");
    add("STACK_GLOBAL", bytes({0x80, 4, 0x8c, 2}) + "os" + bytes({0x8c, 6}) + "system" +
                            bytes({0x93, '.'}), "byte 14: STACK_GLOBAL imports");
    add("REDUCE", bytes({0x80, 2, 'N', ')', 'R', '.'}), "byte 4: REDUCE calls");
    add("BUILD", bytes({0x80, 2, '}', '}', 'b', '.'}), "BUILD sets");
    add("NEWOBJ", bytes({0x80, 2, 'N', ')', 0x81, '.'}), "NEWOBJ builds");
    add("INST", bytes({0x80, 2, '(', 'i'}) + "os\nsystem\n.", "INST builds");
    add("OBJ", bytes({0x80, 2, '(', 'N', 'o', '.'}), "OBJ builds");
    add("PERSID", bytes({0x80, 2, 'P'}) + "x\n.", "PERSID loads");
    add("BINPERSID", bytes({0x80, 2, 'N', 'Q', '.'}), "BINPERSID loads");
    add("EXT1", bytes({0x80, 2, 0x82, 1, '.'}), "EXT1/EXT2/EXT4");
}

void TestMemorySnapshot::refusesCode() {
    QFETCH(QByteArray, stream);
    QFETCH(QString, expected);
    const std::string msg = errorOf(stream.toStdString());
    QVERIFY2(msg.find(expected.toStdString()) != std::string::npos, msg.c_str());
    QVERIFY2(msg.find("nothing is executed") != std::string::npos, msg.c_str());
}

void TestMemorySnapshot::hostile_data() {
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QString>("expected");
    auto add = [](const char* name, const std::string& s, const char* msg) {
        QTest::newRow(name) << QByteArray(s.data(), qsizetype(s.size())) << QString(msg);
    };
    add("empty", "", "byte 0: not a pickle of protocol 2 or later");
    add("protocol 0 text", "(lp0\nI1\na.", "byte 0: not a pickle of protocol 2 or later");
    add("protocol 9", bytes({0x80, 9, 'N', '.'}), "PROTO 9: only protocols 2 to 5");
    add("PROTO twice", bytes({0x80, 2, 0x80, 2, 'N', '.'}), "in the middle of the stream");
    add("unknown opcode", bytes({0x80, 2, 0xf0, '.'}), "byte 2: opcode 0xf0 is not part");
    add("protocol 0 STRING", bytes({0x80, 2, 'S'}) + "'a'\n.", "byte 2: opcode 0x53");
    add("no STOP", bytes({0x80, 2, 'N'}), "truncated: the stream ends before STOP");
    add("string past the end", bytes({0x80, 2, 'X', 0xff, 0xff, 0, 0}) + "abc",
        "truncated: BINUNICODE needs 65535 more bytes, 3 left");
    add("frame past the end", bytes({0x80, 4, 0x95, 100, 0, 0, 0, 0, 0, 0, 0, 'N', '.'}),
        "truncated: FRAME of 100 bytes");
    add("STOP on empty stack", bytes({0x80, 2, '.'}), "STOP with 0 values");
    add("STOP with two values", bytes({0x80, 2, 'N', 'N', '.'}), "STOP with 2 values");
    add("open MARK at STOP", bytes({0x80, 2, '(', 'N', '.'}), "1 marks");
    add("bytes after STOP", bytes({0x80, 2, 'N', '.', 'N'}), "1 bytes after STOP");
    add("APPEND to a dict", bytes({0x80, 2, '}', 'N', 'a', '.'}), "APPEND on a dict");
    add("APPEND on empty", bytes({0x80, 2, 'a', '.'}), "APPEND on an empty stack");
    add("SETITEMS odd", bytes({0x80, 2, '}', '(', 'N', 'u', '.'}), "odd number of values");
    add("APPENDS no mark", bytes({0x80, 2, ']', 'e', '.'}), "APPENDS without a MARK");
    add("TUPLE2 short", bytes({0x80, 2, 'N', 0x86, '.'}), "TUPLE2 needs 2 values");
    add("BINGET unknown", bytes({0x80, 2, 'h', 7, '.'}), "memo entry 7 was never stored");
    add("self-containing list", bytes({0x80, 2, ']', 0x94, 'h', 0, 'a', '.'}),
        "byte 6: APPEND changes a container already placed or referenced elsewhere (a recursive");
    // a = []; b = [a]; a.append(b), as pickle writes it: the second APPEND is refused.
    add("two-list cycle", bytes({0x80, 2, ']', 0x94, ']', 0x94, 'h', 0, 'a', 'a', '.'}),
        "byte 9: APPEND changes a container already placed");
    // A list finished (placed in a tuple) and then changed through the memo.
    add("change a finished list", bytes({0x80, 2, ']', 0x94, 0x85, 'h', 0, 'N', 'a', '.'}),
        "byte 8: APPEND changes a container already placed");
    add("LONG1 of 9 bytes", bytes({0x80, 2, 0x8a, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, '.'}),
        "does not fit in 64 bits");
    add("LONG4 huge", bytes({0x80, 2, 0x8b, 0xff, 0xff, 0xff, 0x7f, '.'}), "truncated: LONG4");
}

void TestMemorySnapshot::hostile() {
    QFETCH(QByteArray, stream);
    QFETCH(QString, expected);
    const std::string msg = errorOf(stream.toStdString());
    QVERIFY2(msg.rfind("t.pickle: pickle: byte ", 0) == 0, msg.c_str());
    QVERIFY2(msg.find(expected.toStdString()) != std::string::npos, msg.c_str());
}

void TestMemorySnapshot::everyTruncationFails() {
    const std::string whole = readFile(kSnapDir + "synthetic.pickle");
    QVERIFY(parse(whole));
    for (std::size_t n = 0; n < whole.size(); ++n) {
        auto r = parse(whole.substr(0, n));
        QVERIFY2(!r, qPrintable(QString("prefix of %1 bytes parsed").arg(n)));
    }
}

void TestMemorySnapshot::limits() {
    // 100 nested lists: refused at the 65th level, before anything recurses.
    std::string deep = bytes({0x80, 2});
    for (int i = 0; i < 100; ++i) deep += bytes({']'});
    for (int i = 0; i < 99; ++i) deep += bytes({'a'});
    deep += ".";
    QVERIFY2(errorOf(deep).find("nested deeper than 64 levels") != std::string::npos,
             errorOf(deep).c_str());
    std::string marks = bytes({0x80, 2});
    for (int i = 0; i < 100; ++i) marks += "(";
    QVERIFY(errorOf(marks).find("more than 64 open MARKs") != std::string::npos);
    // The value budget.
    std::string many = bytes({0x80, 2, '('});
    for (int i = 0; i < 20; ++i) many += "N";
    many += "t.";
    QVERIFY(parsePickle(many, "t", 21));
    auto r = parsePickle(many, "t", 20);
    QVERIFY(!r && r.error().message.find("more than 20 values") != std::string::npos);
    // Memo entries: MEMOIZE again and again on one value.
    std::string memo = bytes({0x80, 4, 'N'});
    for (int i = 0; i < 30; ++i) memo += bytes({0x94});
    memo += ".";
    QVERIFY(parsePickle(memo, "t", 31));
    r = parsePickle(memo, "t", 20);
    QVERIFY(!r && r.error().message.find("more than 20 memo entries") != std::string::npos);
    // Not a regular file.
    auto d = readPickleFile(kSnapDir);
    QVERIFY(!d);
    QVERIFY2(d.error().message.find("not a regular file") != std::string::npos ||
                 d.error().message.find("directory") != std::string::npos,
             d.error().message.c_str());
}

void TestMemorySnapshot::syntheticCurves() {
    const json want = readJson(kSnapDir + "synthetic.expected.json");
    auto s = readMemorySnapshot(kSnapDir + "synthetic.pickle");
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    QCOMPARE(s->device, 0);
    QCOMPARE(s->tracedDevices, std::size_t(1));
    QCOMPARE(s->events.size(), want["events"].get<std::size_t>());
    QCOMPARE(s->phaseEvents[0], want["phase_events"]["forward"].get<std::size_t>());
    QCOMPARE(s->phaseEvents[1], want["phase_events"]["backward"].get<std::size_t>());
    QCOMPARE(s->phaseEvents[2], want["phase_events"]["optimizer"].get<std::size_t>());
    QCOMPARE(s->finalAllocated, want["final_allocated"].get<std::int64_t>());
    QCOMPARE(s->finalReserved, want["final_reserved"].get<std::int64_t>());
    QCOMPARE(s->startAllocated, want["start_allocated"].get<std::int64_t>());
    QCOMPARE(s->startReserved, want["start_reserved"].get<std::int64_t>());
    QCOMPARE(s->peakAllocated, want["peak_allocated"].get<std::int64_t>());
    QCOMPARE(s->peakReserved, want["peak_reserved"].get<std::int64_t>());
    for (const auto& [k, v] : want["allocated_after_event"].items())
        QCOMPARE(s->allocated.at(std::stoul(k)), v.get<std::int64_t>());
}

void TestMemorySnapshot::snapshotErrors() {
    auto fromBytes = [](const std::string& b) -> std::string {
        auto p = parsePickle(b, "s.pickle");
        if (!p) return p.error().message;
        auto s = memorySnapshotFromPickle(**p, "s.pickle");
        return s ? std::string("(no error)") : s.error().message;
    };
    QVERIFY(fromBytes(bytes({0x80, 2, ']', '.'})).find("holds a list, expected a dict") !=
            std::string::npos);
    // {"segments": []}
    std::string noTraces = bytes({0x80, 2, '}', 0x8c, 8}) + "segments" + bytes({']', 's', '.'});
    QVERIFY(fromBytes(noTraces).find("no 'device_traces'") != std::string::npos);
    // {"segments": [], "device_traces": [[]]}
    std::string empty = bytes({0x80, 2, '}', 0x8c, 8}) + "segments" + bytes({']', 's', 0x8c, 13}) +
                        "device_traces" + bytes({']', ']', 'a', 's', '.'});
    QVERIFY(fromBytes(empty).find("the trace is empty") != std::string::npos);
    // One alloc of 512 bytes and no segments: the trace does not match the final state.
    std::string bad = bytes({0x80, 2, '}', 0x8c, 8}) + "segments" + bytes({']', 's', 0x8c, 13}) +
                      "device_traces" + bytes({']', ']', '}', 0x8c, 6}) + "action" +
                      bytes({0x8c, 5}) + "alloc" + bytes({'s', 0x8c, 4}) + "size" +
                      bytes({'M', 0, 2, 's', 'a', 'a', 's', '.'});
    const std::string msg = fromBytes(bad);
    // The same with a segment of 512 bytes holding one block in PyTorch 2.0's pending state:
    // the trace matches, allocated before the alloc is 0 and after it 512.
    std::string pending = bytes({0x80, 2, '}', 0x8c, 8}) + "segments" + bytes({']', '}', 0x8c, 10}) +
                          "total_size" + bytes({'M', 0, 2, 's', 0x8c, 6}) + "blocks" + bytes({']', '}', 0x8c, 4}) +
                          "size" + bytes({'M', 0, 2, 's', 0x8c, 5}) + "state" + bytes({0x8c, 19}) +
                          "active_pending_free" + bytes({'s', 'a', 's', 'a', 's'}) +
                          bad.substr(bad.find(bytes({0x8c, 13})));
    {
        auto p = parsePickle(pending, "p.pickle");
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        auto s = memorySnapshotFromPickle(**p, "p.pickle");
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        QCOMPARE(s->finalAllocated, std::int64_t(512));
        QCOMPARE(s->startAllocated, std::int64_t(0));
        QCOMPARE(s->finalReserved, std::int64_t(512));
    }
    QVERIFY2(msg.find("$.device_traces[0][0]: the trace does not match the segments: allocated") !=
                 std::string::npos,
             msg.c_str());
}

void TestMemorySnapshot::alignWithPrediction() {
    const json want = readJson(kSnapDir + "synthetic.expected.json");
    auto s = readMemorySnapshot(kSnapDir + "synthetic.pickle");
    QVERIFY(s);
    auto m = loadModel("mlp-3x1024");
    QVERIFY(m);
    auto g = lower(m->network, m->training);
    QVERIFY(g);
    auto d = findDevice("a100-80gb");
    QVERIFY(d);
    auto e = evaluate(*g, *parseStrategy("none"), {}, m->training, *d);
    QVERIFY2(e, e ? "" : e.error().message.c_str());
    auto ov = alignSnapshot(*s, e->program, e->timeline);
    QVERIFY2(ov, ov ? "" : ov.error().message.c_str());
    const std::size_t n = e->program.instructions.size();
    QCOMPARE(ov->allocated.size(), n);
    QCOMPARE(ov->reserved.size(), n);
    QCOMPARE(ov->stepFirstEvent, want["last_step_first_event"].get<std::size_t>());
    QCOMPARE(ov->stepEndEvent, want["last_step_end_event"].get<std::size_t>());
    QCOMPARE(ov->spans[1].firstEvent, want["last_step_backward_first_event"].get<std::size_t>());
    QCOMPARE(ov->spans[2].firstEvent, want["last_step_optimizer_first_event"].get<std::size_t>());
    QCOMPARE(ov->measuredPeakAllocated, want["last_step_peak_allocated"].get<std::int64_t>());
    QCOMPARE(ov->measuredPeakReserved, want["last_step_peak_reserved"].get<std::int64_t>());
    QCOMPARE(ov->predictedPeak, e->timeline.peakBytes);
    QCOMPARE(ov->peakDifference(), ov->measuredPeakAllocated - e->timeline.peakBytes);
    // The curves keep the step's peaks, and each phase lands on the program's phase.
    QCOMPARE(*std::max_element(ov->allocated.begin(), ov->allocated.end()),
             ov->measuredPeakAllocated);
    QCOMPARE(*std::max_element(ov->reserved.begin(), ov->reserved.end()), ov->measuredPeakReserved);
    QCOMPARE(e->program.instructions[ov->spans[0].firstInstruction].phase, Phase::Forward);
    const Phase b = e->program.instructions[ov->spans[1].firstInstruction].phase;
    QVERIFY(b == Phase::Backward || b == Phase::Recompute);
    QCOMPARE(e->program.instructions[ov->spans[2].firstInstruction].phase, Phase::Optimizer);
    QCOMPARE(ov->spans[0].endInstruction, ov->spans[1].firstInstruction);
    QCOMPARE(ov->spans[1].endInstruction, ov->spans[2].firstInstruction);
    // Each phase's highest bytes land on that phase's instructions, and the setup before the
    // forward shows the bytes held before the step (the parameters).
    for (const SnapshotSpan& sp : ov->spans) {
        QVERIFY(sp.endEvent > sp.firstEvent && sp.endInstruction > sp.firstInstruction);
        QCOMPARE(*std::max_element(ov->allocated.begin() + sp.firstInstruction,
                                   ov->allocated.begin() + sp.endInstruction),
                 *std::max_element(s->allocated.begin() + sp.firstEvent,
                                   s->allocated.begin() + sp.endEvent));
    }
    QCOMPARE(ov->allocated[0], s->allocated[ov->spans[0].firstEvent - 1]);

    // Accumulation is refused with the reason.
    TrainingConfig acc = m->training;
    acc.accumulationSteps = 2;
    auto e2 = evaluate(*g, *parseStrategy("none"), {}, acc, *d);
    QVERIFY(e2);
    auto ov2 = alignSnapshot(*s, e2->program, e2->timeline);
    QVERIFY(!ov2 && ov2.error().message.find("accumulation 1") != std::string::npos);
}

void TestMemorySnapshot::cliOverlay() {
    const json want = readJson(kSnapDir + "synthetic.expected.json");
    const QString snap = QString::fromStdString(kSnapDir + "synthetic.pickle");
    Run r = runCli({"simulate", "mlp-3x1024", "--snapshot", snap});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("PyTorch snapshot   " + snap +
                            " (device 0, 133 events: forward 12, backward 61, optimizer 60)"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("measured peak    28.02 MiB allocated, 42.00 MiB reserved"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("predicted peak   32.90 MiB"), qPrintable(r.out));
    QVERIFY2(r.out.contains("difference       -4.88 MiB (-14.8% of the predicted peak"),
             qPrintable(r.out));

    r = runCli({"simulate", "mlp-3x1024", "--snapshot", snap, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const json j = json::parse(r.out.toStdString());
    const json& sj = j.at("snapshot");
    QCOMPARE(sj.at("measured_peak_allocated_bytes").get<std::int64_t>(),
             want["last_step_peak_allocated"].get<std::int64_t>());
    QCOMPARE(sj.at("measured_peak_reserved_bytes").get<std::int64_t>(),
             want["last_step_peak_reserved"].get<std::int64_t>());
    QCOMPARE(sj.at("predicted_peak_bytes").get<std::int64_t>(), j.at("peak_bytes").get<std::int64_t>());
    QCOMPARE(sj.at("peak_difference_bytes").get<std::int64_t>(),
             want["last_step_peak_allocated"].get<std::int64_t>() - j.at("peak_bytes").get<std::int64_t>());
    QCOMPARE(sj.at("events").get<std::size_t>(), want["events"].get<std::size_t>());
    QCOMPARE(sj.at("step_phases").at("optimizer").at("first_event").get<std::size_t>(),
             want["last_step_optimizer_first_event"].get<std::size_t>());

    // A pickle that would run code: exit 2, the file and the opcode named.
    QTemporaryDir dir;
    const QString evil = dir.filePath("evil.pickle");
    {
        std::ofstream f(evil.toStdString(), std::ios::binary);
        f << bytes({0x80, 2, 'c'}) << "os\nsystem\n" << bytes({'(', 0x8c, 2}) << "id"
          << bytes({'t', 'R', '.'});
    }
    r = runCli({"simulate", "mlp-3x1024", "--snapshot", evil});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("remat: " + evil + ": pickle: byte 2: GLOBAL imports a Python name"),
             qPrintable(r.err));
    r = runCli({"simulate", "mlp-3x1024", "--snapshot", dir.filePath("missing.pickle")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("missing.pickle"), qPrintable(r.err));
    r = runCli({"simulate", "mlp-3x1024", "--snapshot", snap, "--dp", "2"});
    QCOMPARE(r.exitCode, 2);
}

QTEST_GUILESS_MAIN(TestMemorySnapshot)
#include "tst_memory_snapshot.moc"
