# blockvec's gdb extension: pretty-printers for blocks and tensors, and the `bv` commands.
#
# Programs that link blockvec's interpreter load it by themselves (a .debug_gdb_scripts section;
# gdb asks for the directory to be trusted once: `add-auto-load-safe-path DIR` in ~/.gdbinit), or
# `source share/blockvec/gdb/blockvec_gdb.py` by hand.
#
#   bv programs                every program of the current launch: id, state, source line
#   bv program X[,Y,Z]         look at that parked program's stack (bt, frame, print work there)
#   bv program back            back to the stack that was running (also done before continuing)
#   bv break COND [FILE:LINE]  stop the programs whose ids match COND (breakpoint_if's grammar)
#
# Under gdb, breakpoint_if and BV_BREAK stop here, in gdb, with the kernel's frame selected,
# instead of offering blockvec's own prompt.
import re

import gdb

# gdb before 14 cannot call a function in the program on a CPU whose register state includes AMX
# tiles (Intel Sapphire Rapids and later): Linux takes that state back only whole, and gdb 13's
# buffer for it is smaller. What needs a call (bv programs, bv break, bv program, a fused block's
# values) then says so instead of failing with gdb's message.
_NO_CALLS = ("this gdb cannot call functions in the program on this CPU (its AMX register state is "
             "larger than gdb 13 writes back; gdb 14 or later can): bv programs, bv break, bv program "
             "and fused blocks' values need such calls; breakpoint_if, print_if and the printers of "
             "other blocks and tensors work without them")


def _no_calls(e):
    return "extended state" in str(e)


_STATES = ["not started", "running", "parked at a wait", "stopped", "done"]


def _dims(shape_type):
    return [int(d) for d in re.findall(r"-?\d+", str(shape_type.strip_typedefs()).split("<", 1)[1])]


def _elements(ptr, count):
    return [ptr[i] for i in range(count)]


def _fmt(v, code):
    if code == gdb.TYPE_CODE_FLT:
        return "%g" % float(v)
    if code == gdb.TYPE_CODE_BOOL:
        return "1" if bool(v) else "0"
    try:
        return str(int(v))
    except gdb.error:
        # f16 / bf16: their float conversion, when the type offers one
        return str(v)


def _rows(values, rows, cols, code, limit=16):
    out = []
    for r in range(min(rows, limit)):
        row = values[r * cols:(r + 1) * cols]
        cells = [_fmt(v, code) for v in row[:limit]]
        if cols > limit:
            cells.append("...")
        out.append("[" + ", ".join(cells) + "]")
    if rows > limit:
        out.append("...")
    return out


class BlockPrinter:
    """bv::basic_block<T, shape<R[, C]>, W>: dtype, shape, values (as rows) and how they are held."""

    def __init__(self, val):
        self.val = val
        t = val.type.strip_typedefs()
        self.elem = t.template_argument(0)
        self.dims = _dims(t.template_argument(1))
        self.waves = int(t.template_argument(2))

    def _values(self):
        v, n = self.val, 1
        for d in self.dims:
            n *= d
        code = self.elem.strip_typedefs().code
        state = "owned"
        try:
            view = v["view_"]
            if int(view) != 0:
                return "a view of memory", _elements(view, n), code
        except gdb.error:
            pass
        try:
            lz = v["lz_"]
            pending = bool(lz["pending"])
        except gdb.error:
            pending = False
        if pending:
            names = [f.name for f in lz.type.strip_typedefs().fields()]
            if "eval" in names:
                # A fused f32 value: computed where it is consumed; compute it now into the
                # block's own lanes (what its first read would do), without marking it done.
                out = int(v["v_"]["m_storage"]["m_data"]["array"].address)
                try:
                    gdb.parse_and_eval("((void(*)(const void*, float*))%d)((const void*)%d, (float*)%d)" % (
                        int(lz["eval"]), int(v.address), out))
                except gdb.error as e:
                    if not _no_calls(e):
                        raise
                    return "fused, not computed: " + _NO_CALLS, [], code
                return "fused (computed for display)", _elements(gdb.Value(out).cast(self.elem.pointer()), n), code
            cols = self.dims[-1] if len(self.dims) == 2 else self.dims[0]
            rows = self.dims[0] if len(self.dims) == 2 else 1
            if code == gdb.TYPE_CODE_BOOL:
                one = int(lz["one"])
                return "uniform", [one == 1] * n, code
            aff = v["aff"]
            a0, ar, ac = int(aff["a0"]), int(aff["ar"]), int(aff["ac"])
            vals = [a0 + ar * r + ac * c for r in range(rows) for c in range(cols)]
            return "affine %d + %d*row + %d*col" % (a0, ar, ac), vals, code
        data = v["v_"]["m_storage"]["m_data"]["array"]
        return state, _elements(data, n), code

    def to_string(self):
        held, values, code = self._values()
        rows, cols = (self.dims[0], self.dims[1]) if len(self.dims) == 2 else (1, self.dims[0])
        head = "block<%s, %s> (%d waves, %s)" % (self.elem, "x".join(map(str, self.dims)), self.waves, held)
        return head + "\n  " + "\n  ".join(_rows(values, rows, cols, code))


class TensorPrinter:
    """bv::tensor<T>: name, dtype, shape, strides, and its first values."""

    def __init__(self, val):
        self.val = val

    def to_string(self):
        info = self.val["info_"]["_M_ptr"]
        if int(info) == 0:
            return "tensor (empty)"
        info = info.dereference()
        shape = _vec(info["shape"])
        strides = _vec(info["strides"])
        elem = self.val.type.strip_typedefs().template_argument(0)
        data = self.val["data_"]["_M_ptr"]
        numel = int(info["numel"])
        cols = shape[-1] if shape else 1
        rows = numel // cols if cols else 0
        code = elem.strip_typedefs().code
        values = _elements(data, min(numel, 16 * cols if cols else 0))
        return "tensor '%s' %s shape %s strides %s\n  %s" % (
            info["name"].format_string().strip('"') if hasattr(info["name"], "format_string") else info["name"],
            info["dtype"].string(), shape, strides, "\n  ".join(_rows(values, min(rows, 16), cols, code)))


def _vec(v):
    start, finish = v["_M_impl"]["_M_start"], v["_M_impl"]["_M_finish"]
    return [int(start[i]) for i in range(int(finish - start))]


def _lookup(val):
    t = val.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_REF:
        t = t.target().strip_typedefs()
    name = t.tag or t.name or ""
    if name.startswith("bv::basic_block<"):
        return BlockPrinter(val)
    if name.startswith("bv::fused<") and t.fields() and t.fields()[0].is_base_class:
        return BlockPrinter(val.cast(t.fields()[0].type))
    if name.startswith("bv::tensor<"):
        return TensorPrinter(val)
    return None


# ---- the current launch and its programs --------------------------------------------------------

# The interpreter's entry points for gdb are plain C without debug information: call them cast.
def _call(expr):
    try:
        return gdb.parse_and_eval(expr)
    except gdb.error as e:
        if _no_calls(e):
            raise gdb.GdbError("blockvec: " + _NO_CALLS)
        raise gdb.GdbError("blockvec: %s (does this program link blockvec's interpreter, and is it running?)" % e)


def _current():
    return int(_call("((const void*(*)(void))bv_gdb_current)()"))


def _programs():
    n = int(_call("((int(*)(void))bv_gdb_program_count)()"))
    if n == 0:
        raise gdb.GdbError("no launch is running")
    try:
        ps = gdb.lookup_type("bv::detail::program_state").pointer()
    except gdb.error:
        raise gdb.GdbError("no debug information for bv::detail::program_state: build the program with -g")
    return [_call("((void*(*)(int))bv_gdb_program)(%d)" % i).cast(ps).dereference() for i in range(n)]


def _pid(p):
    return tuple(int(p["pid"]["_M_elems"][i]) for i in range(3))


def _where(p):
    # A finished program's last source location may have lived in its frames: not read.
    if int(p["state"]) in (0, 4):
        return "-"
    try:
        loc = p["last_loc"]
        if int(loc) == 0:
            return "-"
        impl = loc.dereference()["_M_impl"]
        if int(impl) == 0:
            return "-"
        impl = impl.dereference()
        return "%s:%d" % (impl["_M_file_name"].string("utf-8", "strict"), int(impl["_M_line"]))
    except (gdb.error, gdb.MemoryError, UnicodeDecodeError):
        return "-"


class BvCommand(gdb.Command):
    """blockvec: bv programs | bv program X[,Y,Z] | bv program back | bv break COND [FILE:LINE]"""

    def __init__(self):
        super().__init__("bv", gdb.COMMAND_USER, gdb.COMPLETE_NONE, True)


class BvPrograms(gdb.Command):
    """Every program of the current launch: id, state and the source line it last reached."""

    def __init__(self):
        super().__init__("bv programs", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        cur = _current()
        for p in _programs():
            state = _STATES[int(p["state"])] if int(p["state"]) < len(_STATES) else "?"
            here = "  <- current" if int(p.address) == int(cur) else ""
            gdb.write("(%d,%d,%d)  %-17s %s%s\n" % (_pid(p) + (state, _where(p), here)))


# Registers saved by Boost.Context's jump_fcontext (x86-64 System V) at a parked fiber's context.
_SAVED = [("r12", 0x08), ("r13", 0x10), ("r14", 0x18), ("r15", 0x20), ("rbx", 0x28), ("rbp", 0x30)]
_switched = None  # the registers of the stack that was running, while another is looked at


def _restore():
    global _switched
    if _switched is None:
        return
    gdb.execute("select-frame 0", to_string=True)  # registers are set in the innermost frame
    for reg, v in _switched.items():
        gdb.execute("set $%s = %d" % (reg, v), to_string=True)
    _switched = None
    gdb.execute("select-frame 0", to_string=True)


class BvProgram(gdb.Command):
    """bv program X[,Y,Z]: look at that program's stack; bv program back returns."""

    def __init__(self):
        super().__init__("bv program", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        global _switched
        arg = arg.strip()
        if arg == "back":
            _restore()
            gdb.write("back on the running stack\n")
            return
        try:
            want = tuple((list(map(int, arg.split(","))) + [0, 0, 0])[:3])
        except ValueError:
            raise gdb.GdbError("usage: bv program X[,Y,Z] | bv program back")
        cur = _current()
        for p in _programs():
            if _pid(p) != want:
                continue
            if int(p.address) == cur:
                _restore()
                gdb.write("program %s is the one running here\n" % (want,))
                return
            state = int(p["state"])
            if state in (0, 4):
                raise gdb.GdbError("program %s has %s: it has no stack" % (want, _STATES[state]))
            ctx = int(_call("((const void*(*)(const void*))bv_gdb_fiber_context)((const void*)%d)" % int(p.address)))
            if ctx == 0:
                raise gdb.GdbError("program %s runs on another thread right now" % (want,))
            u64 = gdb.lookup_type("unsigned long").pointer()
            gdb.execute("select-frame 0", to_string=True)
            if _switched is None:
                # The thread's own registers (frame 0), not the selected frame's unwound ones.
                f0 = gdb.newest_frame()
                _switched = {r: int(f0.read_register(r)) for r in [x for x, _ in _SAVED] + ["rsp", "rip"]}
            for reg, off in _SAVED:
                gdb.execute("set $%s = %d" % (reg, int(gdb.Value(ctx + off).cast(u64).dereference())), to_string=True)
            gdb.execute("set $rip = %d" % int(gdb.Value(ctx + 0x38).cast(u64).dereference()), to_string=True)
            gdb.execute("set $rsp = %d" % (ctx + 0x40), to_string=True)
            gdb.write("program %s (%s): its stack until `bv program back` or continuing\n" % (want, _STATES[state]))
            return
        raise gdb.GdbError("no program %s in this launch" % (want,))


class BvBreakpoint(gdb.Breakpoint):
    def __init__(self, spec, cond):
        super().__init__(spec, internal=False)
        self.bv_cond = cond

    def stop(self):
        try:
            r = int(gdb.parse_and_eval('((int(*)(const char*))bv_gdb_pid_matches)("%s")' % self.bv_cond.replace('"', '\\"')))
        except gdb.error as e:
            if not _no_calls(e):
                return False
            # The condition cannot be tested: stop at every program rather than at none.
            gdb.write("bv break: %s; stopping here for every program\n" % _NO_CALLS)
            return True
        if r < 0:
            gdb.write("bv break: '%s' is not a program-id condition\n" % self.bv_cond)
            return True
        return r == 1


class BvBreak(gdb.Command):
    """bv break COND [FILE:LINE]: stop programs whose ids match COND (e.g. "=3", "=0,>1"), at
    FILE:LINE, or wherever breakpoint_if or BV_BREAK stop them."""

    def __init__(self):
        super().__init__("bv break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        parts = arg.split()
        if not parts:
            raise gdb.GdbError("usage: bv break COND [FILE:LINE]")
        cond = parts[0]
        ok = int(_call('((int(*)(const char*))bv_gdb_cond_ok)("%s")' % cond.replace('"', '\\"'))) if _live() else 1
        if not ok:
            raise gdb.GdbError("'%s' is not a program-id condition: write one comparison per axis, "
                               "separated by commas, e.g. \"=0,>1\"" % cond)
        BvBreakpoint(parts[1] if len(parts) > 1 else "bv_gdb_stop", cond)


def _live():
    try:
        return gdb.selected_inferior().pid != 0
    except gdb.error:
        return False


class StopAtKernel(gdb.Breakpoint):
    """breakpoint_if / BV_BREAK under gdb: stop with the kernel's frame selected."""

    def __init__(self):
        super().__init__("bv_gdb_stop", internal=True)
        self.silent = True


def _on_stop(event):
    bps = getattr(event, "breakpoints", None) or []
    if not any(isinstance(b, StopAtKernel) for b in bps):
        return
    # The arguments, from the registers at bv_gdb_stop's entry (x86-64 System V): file, line, why.
    char_p = gdb.lookup_type("char").pointer()
    frame0 = gdb.newest_frame()
    try:
        file = frame0.read_register("rdi").cast(char_p).string("utf-8", "replace")
        line = int(frame0.read_register("rsi")) & 0xffffffff
        why = frame0.read_register("rdx").cast(char_p).string("utf-8", "replace")
        gdb.execute("set var *(volatile int*)&bv_gdb_ack = 1", to_string=True)
    except gdb.error as e:
        gdb.write("blockvec: could not read the stop (%s)\n" % e)
        return
    f = frame0
    while f is not None:
        sal = f.find_sal()
        if sal.symtab and sal.line == line and sal.symtab.filename.endswith(file.split("/")[-1]):
            f.select()
            gdb.write("blockvec: %s\n" % why)
            gdb.execute("frame")
            return
        f = f.older()
    gdb.write("blockvec: %s at %s:%d (no frame with debug information there)\n" % (why, file, line))


def _before_resume(event=None):
    _restore()


gdb.pretty_printers.append(_lookup)
BvCommand()
BvPrograms()
BvProgram()
BvBreak()
StopAtKernel()
gdb.events.stop.connect(_on_stop)
for cmd in ("continue", "next", "step", "finish", "until", "stepi", "nexti"):
    gdb.execute("define hook-%s\npython _before_resume()\nend" % cmd, to_string=True)
