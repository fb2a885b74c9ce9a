#include "trace/closure_trace.h"

#include <cctype>

#include "check/verify.h"
#include "trace/builder.h"

namespace kiln::detail {

namespace {

struct ClosureState {
    ir::Program* program = nullptr;
    std::vector<Arg>* args = nullptr;
};
thread_local ClosureState* t_closure = nullptr;

ClosureState& state(const char* op, Loc loc) {
    if (!t_closure) fail(loc, op, "a traced window outside a closure run_metal traces");
    return *t_closure;
}

std::string view_spelling(Kind k, bool writable) { return "View<" + std::string(writable ? "" : "const ") + std::string(kind_name(k)) + ", 1>"; }

// The parameter of the vector at `data`: found again by its address, kind and
// size, or added. A store makes it writable.
int buffer_param(ClosureState& c, const void* data, std::int64_t size, Kind kind, bool write) {
    auto& params = c.program->params;
    for (std::size_t k = 0; k < c.args->size(); ++k) {
        Arg& a = (*c.args)[k];
        if (a.data != data || a.kind != kind || a.extents[0] != size) continue;
        if (write && !params[k].writable) {
            params[k].writable = true;
            params[k].spelling = view_spelling(kind, true);
            a.read_only = false;
        }
        return static_cast<int>(k);
    }
    params.push_back(ParamSig{true, kind, 1, write, view_spelling(kind, write)});
    Arg a;
    a.is_view = true;
    a.kind = kind;
    a.data = const_cast<void*>(data);
    a.read_only = !write;
    a.extents = {size};
    a.strides = {1};
    c.args->push_back(a);
    return static_cast<int>(c.args->size() - 1);
}

Value plus(const Value& off, std::int64_t k, Loc loc) { return k == 0 ? off : binary(OpCode::add, off, literal_int(Kind::I64, k), loc); }

}  // namespace

bool closure_tracing() { return t_closure != nullptr; }

void closure_strict(const char* op, const char* masked, Loc loc) {
    fail(loc, op, std::string("device kernels cannot raise: the strict ") + op + " is not allowed in a kernel run_metal compiles; use " + masked +
                      " (the masked form)");
}

// rows x cols elements, element (i, j) at off + i * stride + j; as the host form,
// columns past the stride and elements outside the vector read the fallback.
Value closure_load(const void* data, std::int64_t size, Kind kind, Kind result, const Value& off, std::int64_t stride, std::int64_t rows,
                   std::int64_t cols, const Value* fallback, const char* op, Loc loc) {
    ClosureState& c = state(op, loc);
    if (rows <= 0 || cols <= 0) fail(loc, op, "non-positive window " + std::to_string(rows) + "x" + std::to_string(cols));
    if (stride <= 0) fail(loc, op, "non-positive row stride " + std::to_string(stride));
    std::int64_t span = 0;
    if (__builtin_mul_overflow(rows - 1, stride, &span) || __builtin_add_overflow(span, cols, &span))
        fail(loc, op, "a window of " + std::to_string(rows) + " rows of stride " + std::to_string(stride) + " is too large");
    const int p = buffer_param(c, data, size, kind, false);
    const Value window = load_view(p, Coord{{off}, loc}, shape(span), bounds::zero, fallback, loc);
    const std::vector<Dim> dims{Dim{rows, 0}, Dim{cols, 0}};
    Value tile;
    if (stride == cols) {
        tile = reshape(window, dims, loc);
    } else {
        EagerData at, inside;
        for (std::int64_t i = 0; i < rows; ++i)
            for (std::int64_t j = 0; j < cols; ++j) {
                at.ints.push_back(j < stride ? i * stride + j : 0);
                inside.ints.push_back(j < stride);
            }
        tile = reindex(window, dims, {make_eager(Type{Kind::I64, dims}, std::move(at))}, loc);
        if (cols > stride) tile = select(make_eager(Type{Kind::Bool, dims}, std::move(inside)), tile, *fallback, loc);
    }
    return result == kind ? tile : cast(tile, result, loc);
}

// stride 0: the tile's elements in row-major order from off (store_clipped);
// else row i of a 2-D tile from off + i * stride (store_rows).
void closure_store(const void* data, std::int64_t size, Kind kind, const Value& off, std::int64_t stride, const Value& value, bounds::Policy policy,
                   const char* op, Loc loc) {
    ClosureState& c = state(op, loc);
    const int p = buffer_param(c, data, size, kind, true);
    const Value v = value.type.kind == kind ? value : cast(value, kind, loc);
    const std::int64_t count = v.type.count();
    if (stride == 0) {
        store_view(p, Coord{{off}, loc}, shape(count), policy, reshape(v, {Dim{count, 0}}, loc), loc);
        return;
    }
    if (v.type.rank() != 2) fail(loc, op, "needs a 2-D tile");
    const std::int64_t rows = v.type.dims[0].extent, cols = v.type.dims[1].extent;
    for (std::int64_t i = 0; i < rows; ++i) {
        const Value row = reshape(slice(v, {i, 0}, {1, cols}, loc), {Dim{cols, 0}}, loc);
        store_view(p, Coord{{plus(off, i * stride, loc)}, loc}, shape(cols), policy, row, loc);
    }
}

TracedClosure trace_closure(std::int64_t instances, const std::function<void(const Scalar<i64>&)>& f, Loc loc) {
    if (t_closure) fail(loc, "run_metal", "a launch inside a closure that run_metal is tracing");
    TracedClosure r;
    r.program = std::make_shared<ir::Program>();
    std::string name = "closure";
    if (loc.known()) {
        std::string file = loc.file;
        file = file.substr(file.find_last_of('/') + 1);
        name += "_" + file + "_" + std::to_string(loc.line);
    }
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    r.program->name = name;
    r.program->loc = loc;
    ClosureState st{r.program.get(), &r.args};
    {
        trace::Builder b(*r.program, r.args);
        t_closure = &st;
        struct Reset {
            ~Reset() { t_closure = nullptr; }
        } reset;
        auto pid = axis("pid", Extent(instances), loc);
        for (auto& nest : parallel(shape(pid), loc)) f(nest.index(loc));
        if (b.depth() != 0) fail(loc, "run_metal", "a loop nest was left open");
    }
    check::verify(*r.program);
    return r;
}

}  // namespace kiln::detail
