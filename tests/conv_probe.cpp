// conv_probe: the CPU backend's conv2d on operands read from files, for the PyTorch comparison
// (tests/torch/tst_conv_torch.py). Usage:
//   conv_probe DIR N C H W O K STRIDE PADDING DILATION GROUPS BIAS(0|1)
// reads DIR/x.f32 [N, C, H, W], DIR/w.f32 [O, C/GROUPS, K, K], DIR/b.f32 [O] (with a bias) and
// DIR/dy.f32 [N, O, Ho, Wo] (raw little-endian float32), runs the forward and the backward
// (gradients starting at zero) and writes DIR/y.f32, DIR/dx.f32, DIR/dw.f32 and DIR/db.f32.
// Exit status 1 with a message on stderr for bad arguments, a missing file or a backend error.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "backends.h"

using namespace remat;

namespace {

bool readFile(const std::string& path, std::vector<float>& v) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
    return bool(f) && f.peek() == std::char_traits<char>::eof();
}

bool writeFile(const std::string& path, const std::vector<float>& v) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
    return bool(f);
}

int fail(const std::string& what) {
    std::cerr << "conv_probe: " << what << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 13)
        return fail("usage: conv_probe DIR N C H W O K STRIDE PADDING DILATION GROUPS BIAS");
    const std::string dir = argv[1];
    std::int64_t a[11];
    for (int i = 0; i < 11; ++i) {
        char* end = nullptr;
        a[i] = std::strtoll(argv[i + 2], &end, 10);
        if (!end || *end) return fail(std::string("not a whole number: ") + argv[i + 2]);
    }
    const std::int64_t N = a[0], C = a[1], H = a[2], W = a[3], O = a[4], K = a[5];
    const std::int64_t S = a[6], P = a[7], D = a[8], G = a[9];
    const bool bias = a[10] != 0;
    if (N < 1 || C < 1 || H < 1 || W < 1 || O < 1 || K < 1 || S < 1 || P < 0 || D < 1 || G < 1 ||
        C % G != 0 || O % G != 0)
        return fail("sizes must be positive and GROUPS must divide C and O");
    const std::int64_t Ho = convOutputSize(H, K, S, P, D), Wo = convOutputSize(W, K, S, P, D);
    if (Ho < 1 || Wo < 1) return fail("the dilated kernel does not fit the padded input");

    auto cpu = makeBackend("cpu");
    if (!cpu) return fail(cpu.error().message);
    Op op;
    op.kind = OpKind::Conv2d;
    op.name = "conv";
    op.attrs.in = C;
    op.attrs.out = O;
    op.attrs.kernel = K;
    op.attrs.stride = S;
    op.attrs.padding = P;
    op.attrs.dilation = D;
    op.attrs.groups = G;
    op.attrs.bias = bias;
    const Shape xs{N, C, H, W}, ys{N, O, Ho, Wo}, ws{O, C / G, K, K};
    std::vector<float> x(std::size_t(N * C * H * W)), w(std::size_t(O * C / G * K * K)),
        b(static_cast<std::size_t>(O)), dy(static_cast<std::size_t>(N * O * Ho * Wo));
    if (!readFile(dir + "/x.f32", x) || !readFile(dir + "/w.f32", w) ||
        (bias && !readFile(dir + "/b.f32", b)) || !readFile(dir + "/dy.f32", dy))
        return fail("an input file is missing or not of the size the shape gives");
    std::vector<float> y(dy.size()), dx(x.size(), 0.0f), dw(w.size(), 0.0f), db(b.size(), 0.0f);
    auto t = [](std::vector<float>& v, Shape s) { return TensorRef{v.data(), DType::F32, s}; };

    OpCall c;
    c.op = &op;
    c.microBatch = N;
    c.inputs = {t(x, xs)};
    c.outputs = {t(y, ys)};
    c.params = {t(w, ws)};
    if (bias) c.params.push_back(t(b, {O}));
    if (auto st = (*cpu)->conv2dForward(c); !st) return fail(st.error().message);
    OpCall bw;
    bw.op = &op;
    bw.microBatch = N;
    bw.saved = {t(x, xs)};
    bw.params = c.params;
    bw.gradOutputs = {t(dy, ys)};
    bw.gradInputs = {t(dx, xs)};
    bw.paramGrads = {t(dw, ws)};
    if (bias) bw.paramGrads.push_back(t(db, {O}));
    if (auto st = (*cpu)->conv2dBackward(bw); !st) return fail(st.error().message);
    if (!writeFile(dir + "/y.f32", y) || !writeFile(dir + "/dx.f32", dx) ||
        !writeFile(dir + "/dw.f32", dw) || !writeFile(dir + "/db.f32", db))
        return fail("cannot write the results into " + dir);
    return 0;
}
