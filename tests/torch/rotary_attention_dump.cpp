// A helper of tests/torch/test_rotary_attention.py, not a test itself: runs rotary embeddings
// and causal flash attention on the CPU backend, forward and backward, for the operands in a
// JSON file and prints the results as JSON, so that a PyTorch implementation of Hugging Face
// Llama's rotary attention can be compared with ours. Input: {"batch", "tokens", "heads",
// "kv_heads", "head_dim", "rotary_dims", "rotary_base", "qkv": [B T (H + 2 KV) D floats],
// "d_out": [B T H D floats]}. Output: {"out": [...], "d_qkv": [...]}: the attention output for
// qkv, and the gradient of sum(out * d_out) with respect to qkv (before the rotation). The
// rotary op writes over its input as it does in a program; backward runs the flash op's
// backward and then the rotary op's, as a program does.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cpu/cpu_backend.h"
#include "graph.h"

using namespace remat;

namespace {

int fail(const std::string& what) {
    std::cerr << "rotary_attention_dump: " << what << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return fail("usage: rotary_attention_dump INPUT.json");
    std::ifstream in(argv[1]);
    if (!in) return fail(std::string("cannot open ") + argv[1]);
    nlohmann::json j;
    try {
        in >> j;
    } catch (const std::exception& e) {
        return fail(std::string("not JSON: ") + e.what());
    }
    const std::int64_t b = j.at("batch"), t = j.at("tokens"), h = j.at("heads"),
                       kv = j.at("kv_heads"), d = j.at("head_dim");
    std::vector<float> qkv = j.at("qkv").get<std::vector<float>>();
    std::vector<float> dOut = j.at("d_out").get<std::vector<float>>();
    const std::int64_t width = (h + 2 * kv) * d;
    if (std::int64_t(qkv.size()) != b * t * width || std::int64_t(dOut.size()) != b * t * h * d)
        return fail("qkv or d_out does not match the shape");

    Op rotary;
    rotary.kind = OpKind::Rotary;
    rotary.name = "rotary";
    rotary.inPlaceInput = 0;
    Op flash;
    flash.kind = OpKind::FlashAttn;
    flash.name = "flash";
    for (Op* op : {&rotary, &flash}) {
        op->attrs.tokens = t;
        op->attrs.heads = h;
        op->attrs.kvHeads = kv;
        op->attrs.headDim = d;
    }
    rotary.attrs.rotaryDims = j.at("rotary_dims");
    rotary.attrs.rotaryBase = j.at("rotary_base");
    flash.attrs.causal = true;

    const Shape qkvShape{b, t, width}, outShape{b, t, h * d}, lseShape{b, h, t};
    std::vector<float> out(std::size_t(b * t * h * d)), lse(std::size_t(b * h * t));
    std::vector<float> dRotated(qkv.size(), 0.0f), dQkv(qkv.size(), 0.0f);
    CpuBackend cpu(1);
    if (auto st = cpu.beginStep(0); !st) return fail(st.error().message);
    const TensorRef qkvRef{qkv.data(), DType::F32, qkvShape};
    OpCall rf;
    rf.op = &rotary;
    rf.microBatch = b;
    rf.inputs = {qkvRef};
    rf.outputs = {qkvRef};
    if (auto st = cpu.rotaryForward(rf); !st) return fail(st.error().message);
    OpCall ff;
    ff.op = &flash;
    ff.microBatch = b;
    ff.inputs = {qkvRef};
    ff.outputs = {TensorRef{out.data(), DType::F32, outShape},
                  TensorRef{lse.data(), DType::F32, lseShape}};
    if (auto st = cpu.flashAttnForward(ff); !st) return fail(st.error().message);
    OpCall fb;
    fb.op = &flash;
    fb.microBatch = b;
    fb.saved = {qkvRef, ff.outputs[0], ff.outputs[1]};
    fb.gradOutputs = {TensorRef{dOut.data(), DType::F32, outShape}, TensorRef{}};
    fb.gradInputs = {TensorRef{dRotated.data(), DType::F32, qkvShape}};
    if (auto st = cpu.flashAttnBackward(fb); !st) return fail(st.error().message);
    OpCall rb;
    rb.op = &rotary;
    rb.microBatch = b;
    rb.gradOutputs = {fb.gradInputs[0]};
    rb.gradInputs = {TensorRef{dQkv.data(), DType::F32, qkvShape}};
    if (auto st = cpu.rotaryBackward(rb); !st) return fail(st.error().message);
    if (auto st = cpu.endStep(); !st) return fail(st.error().message);
    std::cout << nlohmann::json{{"out", out}, {"d_qkv", dQkv}}.dump() << "\n";
    return 0;
}
