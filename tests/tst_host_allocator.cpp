// The CPU executor's size-class caching allocator: classes, reuse, high-water marks and
// giving memory back — the figures behind the CPU run's device-level peak.
#include <QtTest>
#include <cstdint>

#include "cpu/host_allocator.h"

using remat::HostAllocator;

class TestHostAllocator : public QObject {
    Q_OBJECT

private slots:
    void sizeClassesRoundUpByAtMostAQuarter();
    void blocksAreAlignedAndReused();
    void highWaterMarksShowRoundingAndCaching();
    void trimGivesCachedBlocksBack();
};

void TestHostAllocator::sizeClassesRoundUpByAtMostAQuarter() {
    QCOMPARE(HostAllocator::sizeClass(1), std::int64_t{64});
    QCOMPARE(HostAllocator::sizeClass(64), std::int64_t{64});
    QCOMPARE(HostAllocator::sizeClass(65), std::int64_t{128});
    QCOMPARE(HostAllocator::sizeClass(4096), std::int64_t{4096});
    QCOMPARE(HostAllocator::sizeClass(4097), std::int64_t{5120});  // steps of 1 KiB in [4, 8) KiB
    QCOMPARE(HostAllocator::sizeClass(std::int64_t{1} << 20), std::int64_t{1} << 20);
    QCOMPARE(HostAllocator::sizeClass((std::int64_t{1} << 20) + 1), std::int64_t{1310720});
    for (std::int64_t b = 1; b < (std::int64_t{1} << 26); b = b * 3 / 2 + 7) {
        const std::int64_t c = HostAllocator::sizeClass(b);
        QVERIFY(c >= b);
        QVERIFY(c % 64 == 0);
        if (b > 4096) QVERIFY2(c - b < b / 4 + 1, qPrintable(QString::number(b)));
        QCOMPARE(HostAllocator::sizeClass(c), c);  // classes are fixed points
    }
}

void TestHostAllocator::blocksAreAlignedAndReused() {
    HostAllocator a;
    void* p = a.allocate(1000);
    QVERIFY(p);
    QCOMPARE(reinterpret_cast<std::uintptr_t>(p) % 64, std::uintptr_t{0});
    a.release(p);
    void* q = a.allocate(1010);  // same class (1024): the cached block comes back
    QCOMPARE(q, p);
    void* r = a.allocate(5000);  // another class: a fresh block
    QVERIFY(r != p);
    a.release(q);
    a.release(r);
    QCOMPARE(a.usedBytes(), std::int64_t{0});
    QCOMPARE(a.reservedBytes(), std::int64_t{1024 + 5120});
}

void TestHostAllocator::highWaterMarksShowRoundingAndCaching() {
    HostAllocator a;
    void* x = a.allocate(4097);  // class 5120
    QCOMPARE(a.usedPeakBytes(), std::int64_t{5120});
    a.release(x);
    // A request of another class cannot use the cached block: obtained bytes grow although
    // no more than one block is ever in use.
    void* y = a.allocate(300);
    QCOMPARE(a.usedPeakBytes(), std::int64_t{5120});
    QCOMPARE(a.reservedPeakBytes(), std::int64_t{5120 + 320});
    a.resetPeaks();
    QCOMPARE(a.usedPeakBytes(), std::int64_t{320});
    QCOMPARE(a.reservedPeakBytes(), std::int64_t{5440});
    a.release(y);
}

void TestHostAllocator::trimGivesCachedBlocksBack() {
    HostAllocator a;
    void* x = a.allocate(100000);
    void* y = a.allocate(200);
    a.release(x);
    QVERIFY(a.cachedBytes() > 0);
    a.trim();
    QCOMPARE(a.cachedBytes(), std::int64_t{0});
    QCOMPARE(a.reservedBytes(), a.usedBytes());
    a.release(y);
    a.release(nullptr);  // unknown pointers are ignored
    a.trim();
    QCOMPARE(a.reservedBytes(), std::int64_t{0});
}

QTEST_GUILESS_MAIN(TestHostAllocator)
#include "tst_host_allocator.moc"
