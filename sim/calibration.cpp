#include "calibration.h"

#include <cstdio>

#include "text.h"

namespace remat {

namespace {

void appendShape(std::string& s, const Shape& shape) {
    s += '[';
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(shape[i]);
    }
    s += ']';
}

void appendAttr(std::string& s, const char* name, std::int64_t v) {
    if (v == 0) return;
    s += ' ';
    s += name;
    s += '=';
    s += std::to_string(v);
}

}  // namespace

std::string opShapeKey(const Graph& g, const Op& op, Precision precision) {
    std::string s(opKindName(op.kind));
    s += ' ';
    s += precisionName(precision);
    s += ' ';
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        if (i) s += ',';
        appendShape(s, g.tensor(op.inputs[i]).shape);
    }
    s += " ->";
    for (TensorId o : op.outputs) {
        s += ' ';
        appendShape(s, g.tensor(o).shape);
    }
    const OpAttrs& a = op.attrs;
    appendAttr(s, "in", a.in);
    appendAttr(s, "out", a.out);
    appendAttr(s, "tokens", a.tokens);
    appendAttr(s, "heads", a.heads);
    appendAttr(s, "kv_heads", a.kvHeads);
    appendAttr(s, "head_dim", a.headDim);
    appendAttr(s, "vocab", a.vocab);
    appendAttr(s, "positions", a.positions);
    appendAttr(s, "rotary_dims", a.rotaryDims);
    appendAttr(s, "kernel", a.kernel);
    if (a.kernel != 0) {
        appendAttr(s, "stride", a.stride);
        appendAttr(s, "padding", a.padding);
        if (a.dilation != 1) appendAttr(s, "dilation", a.dilation);
        if (a.groups != 1) appendAttr(s, "groups", a.groups);
    }
    if (a.p > 0) {
        char p[32];
        std::snprintf(p, sizeof p, " p=%g", a.p);
        s += p;
    }
    if (a.causal) s += " causal";
    if (a.bias) s += " bias";
    if (op.inPlaceInput >= 0) s += " inplace";
    return s;
}

const MeasuredOpTime* measuredTime(const DeviceSpec& d, const Graph& g, const Op& op,
                                   Precision precision) {
    if (!d.measured.empty()) {
        auto it = d.measured.find(op.name);
        if (it != d.measured.end()) return &it->second;
    }
    if (!d.measuredByShape.empty()) {
        auto it = d.measuredByShape.find(opShapeKey(g, op, precision));
        if (it != d.measuredByShape.end()) return &it->second;
    }
    return nullptr;
}

CalibrationCoverage calibrationCoverage(const DeviceSpec& d, const Graph& g, Precision precision) {
    CalibrationCoverage c;
    for (const Op& op : g.ops) {
        if (op.kind == OpKind::Flatten) continue;
        ++c.ops;
        if (measuredTime(d, g, op, precision)) ++c.measured;
    }
    return c;
}

std::vector<std::string> calibrationWarnings(const DeviceSpec& d, const Graph& g,
                                             Precision precision, const std::string& model) {
    std::vector<std::string> out;
    if (!d.calibrated()) return out;
    const CalibrationOrigin& o = d.calibrationOrigin;
    const std::string profile = "calibrated profile '" + printable(d.id) + "'";
    const CalibrationCoverage c = calibrationCoverage(d, g, precision);
    const std::string coverage = std::to_string(c.measured) + " of " + std::to_string(c.ops) +
                                 " ops have a measured time";
    if (!o.known()) {
        out.push_back(profile + " does not record what it was measured on (model, precision, "
                                "backend); " + coverage);
        return out;
    }
    if (!o.backend.empty() && o.backend != "cuda")
        out.push_back(profile + " was measured on the " + printable(o.backend) + " backend (" +
                      printable(o.deviceName, 200) + "), not on a GPU: its times are that machine's");
    const std::string wanted(precisionName(precision));
    if (!o.precision.empty() && o.precision != wanted)
        out.push_back(profile + " was measured at " + printable(o.precision) + ", this run uses " +
                      wanted + ": " + coverage + ", the rest use the efficiency model");
    else if (!o.model.empty() && o.model != model)
        out.push_back(profile + " was measured on model '" + printable(o.model) +
                      "', applied to '" + printable(model) + "': " + coverage +
                      " (same kind and shape), the rest use the efficiency model");
    else if (c.measured < c.ops)
        out.push_back(profile + ": only " + coverage + ", the rest use the efficiency model");
    return out;
}

}  // namespace remat
