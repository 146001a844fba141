/*
 * pickle_globals.c - the tables of pickle_globals.h.
 *
 * Sources:
 *   - dangerous: picklescan's _unsafe_globals (mmaitre314/picklescan,
 *     scanner.py), modelscan's unsafe_globals, the payloads of published
 *     pickle exploits (os.system, builtins.eval/exec/getattr/__import__,
 *     subprocess, runpy._run_code, pty.spawn, webbrowser.open, socket,
 *     operator.attrgetter/methodcaller, functools.partial, types.CodeType,
 *     marshal.loads, pickle.loads), and the scanner bypasses of 2025:
 *     CVE-2025-10157 (a subclass in a submodule of a dangerous module:
 *     asyncio.unix_events._UnixSubprocessTransport), dotted names resolved
 *     through another module (STACK_GLOBAL 'torch' 'os.system'), torch's own
 *     loaders (torch.load, torch.storage._load_from_bytes, whose
 *     torch.save'd bytes are loaded with weights_only=False), and
 *     torch.fx.graph_module.reduce_graph_module (exec of generated code);
 *   - tensor: the rebuild functions, storage and tensor classes, dtypes and
 *     layouts torch.save writes (torch/_utils.py, torch/_tensor.py,
 *     torch/storage.py, torch/serialization.py), TorchScript's
 *     torch.jit._pickle builders;
 *   - data: the builders of plain values that Python's pickler writes for
 *     builtins, collections, copyreg, datetime, pathlib, decimal,
 *     fractions, argparse.Namespace, and NumPy's array, dtype, scalar and
 *     random-state reducers (numpy/core/multiarray.py, numpy/random/
 *     _pickle.py), joblib's array wrappers;
 *   - weights_only: torch/_weights_only_unpickler.py of torch 1.13.1
 *     (Debian's python3-torch) and of torch 2.4 (the release that added
 *     add_safe_globals: PyTorch PR #124331), _get_allowed_globals() and the
 *     opcodes of Unpickler.load.
 */
#include "pickle_globals.h"

#include <stdio.h>

/* (The first bytes are compared before the lengths: most table entries
 * differ there.) */
static int eq(const char *a, size_t n, const char *lit)
{
    if (!n || a[0] != lit[0])
        return !n && !lit[0];
    return strlen(lit) == n && memcmp(a, lit, n) == 0;
}

static int starts(const char *a, size_t n, const char *lit)
{
    if (n && lit[0] && a[0] != lit[0])
        return 0;
    size_t k = strlen(lit);
    return n >= k && memcmp(a, lit, k) == 0;
}

static int ends(const char *a, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && memcmp(a + n - k, lit, k) == 0;
}

/* ------------------------------------------------------------------------ */
/* Dangerous                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct danger {
    const char *path;        /* "os.system", or a module: every name under it */
    const char *what;
} danger;

/* Specific names before the modules that hold them, so the phrase is the
 * most precise one. */
static const danger dangers[] = {
    {"os.system", "run a shell command"},
    {"os.popen", "run a shell command"},
    {"posix.system", "run a shell command"},
    {"posix.popen", "run a shell command"},
    {"nt.system", "run a shell command"},
    {"nt.popen", "run a shell command"},
    {"builtins.eval", "run Python code"},
    {"builtins.exec", "run Python code"},
    {"builtins.execfile", "run Python code"},
    {"builtins.compile", "compile Python code"},
    {"builtins.open", "open a file"},
    {"builtins.file", "open a file"},
    {"builtins.getattr", "reach any attribute of any object"},
    {"builtins.setattr", "change any attribute of any object"},
    {"builtins.delattr", "change any attribute of any object"},
    {"builtins.__import__", "import any module"},
    {"builtins.breakpoint", "start a debugger"},
    {"builtins.input", "read from the terminal"},
    {"builtins.apply", "call any function"},
    {"builtins.globals", "reach the interpreter's globals"},
    {"builtins.locals", "reach the interpreter's globals"},
    {"builtins.vars", "reach the interpreter's globals"},
    {"builtins.exit", "stop the program"},
    {"builtins.quit", "stop the program"},
    {"builtins.help", "start the interactive help"},
    {"torch.load", "load another pickle with weights_only=False"},
    {"torch.serialization.load", "load another pickle"},
    {"torch.serialization._load", "load another pickle"},
    {"torch.serialization._legacy_load", "load another pickle"},
    {"torch.storage._load_from_bytes", "load a torch.save file from bytes, with "
                                       "weights_only=False"},
    {"torch._utils._rebuild_tensor_from_bytes", "load another pickle"},
    {"torch.jit.load", "load and run TorchScript code"},
    {"torch.jit._load_for_lite_interpreter", "load and run TorchScript code"},
    {"torch.jit._serialization", "load and run TorchScript code"},
    {"torch._C.import_ir_module", "load and run TorchScript code"},
    {"torch._C._load_for_mobile", "load and run TorchScript code"},
    {"torch.fx.graph_module.reduce_graph_module", "run Python code generated from a graph"},
    {"torch.fx.graph_module.reduce_package_graph_module", "run Python code generated from "
                                                          "a graph"},
    {"torch.fx.graph_module.reduce_deploy_graph_module", "run Python code generated from a "
                                                         "graph"},
    {"torch.fx.graph_module._deserialize_graph_module", "run Python code generated from a "
                                                        "graph"},
    {"torch.fx.graph_module._exec_with_source", "run Python code"},
    {"torch.package", "import and run packaged Python code"},
    {"torch.hub", "download and run code"},
    {"torch.utils.cpp_extension", "compile and load C++ code"},
    {"torch._inductor.codecache", "compile and load code"},
    {"torch.distributed.rpc", "call functions on other machines"},
    {"numpy.load", "load another pickle"},
    {"numpy.lib.npyio.load", "load another pickle"},
    {"numpy.testing._private.utils.runstring", "run Python code"},
    {"numpy.f2py", "compile and import code"},
    {"numpy.distutils", "compile and import code"},
    {"joblib.load", "load another pickle"},
    {"joblib.numpy_pickle.load", "load another pickle"},
    {"pandas.read_pickle", "load another pickle"},
    {"pandas.io.pickle.read_pickle", "load another pickle"},
    {"operator.attrgetter", "reach any attribute of any object"},
    {"operator.methodcaller", "call any method"},
    {"operator.itemgetter", "reach any item of any object"},
    {"functools.partial", "call any function"},
    {"functools.reduce", "call any function"},
    {"weakref.finalize", "call a function later"},
    {"logging.config", "listen on a socket and build objects of any class"},
    {"os", "act on files and processes"},
    {"posix", "act on files and processes"},
    {"nt", "act on files and processes"},
    {"subprocess", "run a command"},
    {"pty", "run a command"},
    {"commands", "run a command"},
    {"popen2", "run a command"},
    {"asyncio", "run a command"},
    {"multiprocessing", "start processes"},
    {"concurrent.futures.process", "start processes"},
    {"threading", "start threads"},
    {"_thread", "start threads"},
    {"atexit", "run code when the program exits"},
    {"runpy", "run Python code"},
    {"code", "run Python code"},
    {"codeop", "compile Python code"},
    {"timeit", "run Python code"},
    {"cProfile", "run Python code"},
    {"profile", "run Python code"},
    {"trace", "run Python code"},
    {"doctest", "run Python code"},
    {"importlib", "import any module"},
    {"imp", "import any module"},
    {"pkgutil", "import any module"},
    {"zipimport", "import any module"},
    {"site", "import any module"},
    {"types", "build Python code or functions"},
    {"marshal", "build Python code"},
    {"pickle", "load another pickle"},
    {"_pickle", "load another pickle"},
    {"cPickle", "load another pickle"},
    {"dill", "load another pickle"},
    {"cloudpickle", "load another pickle"},
    {"shelve", "load another pickle"},
    {"copyreg", "build objects of any class"},
    {"sys", "change the interpreter"},
    {"ctypes", "call C functions"},
    {"_ctypes", "call C functions"},
    {"cffi", "call C functions"},
    {"bdb", "start a debugger"},
    {"pdb", "start a debugger"},
    {"socket", "open network connections"},
    {"ssl", "open network connections"},
    {"http", "open network connections"},
    {"httplib", "open network connections"},
    {"urllib", "open network connections"},
    {"urllib2", "open network connections"},
    {"urllib3", "open network connections"},
    {"requests", "open network connections"},
    {"aiohttp", "open network connections"},
    {"ftplib", "open network connections"},
    {"smtplib", "open network connections"},
    {"telnetlib", "open network connections"},
    {"xmlrpc", "open network connections"},
    {"webbrowser", "open a web browser"},
    {"antigravity", "open a web browser"},
    {"shutil", "copy or delete files"},
    {"tempfile", "create files"},
    {"glob", "list files"},
    {"io", "open files"},
    {"_io", "open files"},
    {"fileinput", "open files"},
    {"linecache", "read files"},
    {"tarfile", "write files"},
    {"zipfile", "write files"},
    {"sqlite3", "open files"},
    {"mmap", "map files"},
    {"signal", "change the process's signals"},
    {"pip", "install packages"},
    {"setuptools", "build and install packages"},
    {"distutils", "build and install packages"},
    {"ensurepip", "install packages"},
    {"venv", "create environments and run commands"},
};

/* Functions that run code whatever module re-exports them ("from os import
 * system"): matched as any attribute of a dotted path. */
static const char *const code_names[] = {
    "system", "popen", "popen2", "popen3", "Popen", "eval", "exec", "execfile",
    "check_output", "check_call", "getoutput", "getstatusoutput", "spawnl", "spawnle",
    "spawnlp", "spawnv", "spawnve", "spawnvp", "spawnvpe", "execl", "execle", "execlp",
    "execv", "execve", "execvp", "execvpe", "run_path", "run_module", "_run_code",
    "_run_module_code", "runstring", "runctx", "import_module", "_load_from_bytes",
};

/* Path p (n bytes) is `path`, or an attribute below it. */
static int under(const char *p, size_t n, const char *path)
{
    if (n && path[0] && p[0] != path[0])
        return 0;
    size_t k = strlen(path);
    return n >= k && memcmp(p, path, k) == 0 && (n == k || p[k] == '.');
}

/* Python 2 names that Python 3's unpickler maps (Lib/_compat_pickle.py,
 * NAME_MAPPING then IMPORT_MAPPING), for the ones that matter here: the
 * pickler writes __builtin__.long for int at protocol 2. */
static void map_global(const char **m, size_t *ml, const char **n, size_t *nl)
{
    static const char *const names[][4] = {
        {"__builtin__", "long", "builtins", "int"},
        {"__builtin__", "unicode", "builtins", "str"},
        {"__builtin__", "basestring", "builtins", "str"},
        {"__builtin__", "xrange", "builtins", "range"},
        {"__builtin__", "unichr", "builtins", "chr"},
        {"__builtin__", "raw_input", "builtins", "input"},
        {"__builtin__", "reduce", "functools", "reduce"},
        {"__builtin__", "intern", "sys", "intern"},
        {"itertools", "izip", "builtins", "zip"},
        {"itertools", "imap", "builtins", "map"},
        {"UserDict", "UserDict", "collections", "UserDict"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (eq(*m, *ml, names[i][0]) && eq(*n, *nl, names[i][1])) {
            *m = names[i][2];
            *ml = strlen(*m);
            *n = names[i][3];
            *nl = strlen(*n);
            return;
        }
    static const char *const from[] = {"__builtin__", "copy_reg", "exceptions", "cPickle",
                                       "commands", "urllib2", "httplib"};
    static const char *const to[] = {"builtins", "copyreg", "builtins", "pickle",
                                     "subprocess", "urllib.request", "http.client"};
    for (size_t i = 0; i < sizeof from / sizeof *from; i++)
        if (eq(*m, *ml, from[i])) {
            *m = to[i];
            *ml = strlen(to[i]);
            return;
        }
}

const char *ts__global_danger(const char *module, size_t module_len, const char *name,
                              size_t name_len)
{
    map_global(&module, &module_len, &name, &name_len);
    char path[1024];
    if (module_len + 1 + name_len >= sizeof path)
        return "reach an attribute through a path too long to check";
    memcpy(path, module, module_len);
    path[module_len] = '.';
    memcpy(path + module_len + 1, name, name_len);
    size_t n = module_len + 1 + name_len;
    path[n] = '\0';
    /* the whole path, then the path from each attribute of the name on
     * (of two attributes at least: a function named "code" is not the
     * module code) */
    for (size_t start = 0;;) {
        for (size_t i = 0; i < sizeof dangers / sizeof *dangers; i++)
            if ((start == 0 || memchr(path + start, '.', n - start)) &&
                under(path + start, n - start, dangers[i].path))
                return dangers[i].what;
        if (start == 0) {
            start = module_len + 1;
        } else {
            const char *dot = memchr(path + start, '.', n - start);
            if (!dot)
                break;
            start = (size_t)(dot - path) + 1;
        }
    }
    /* an attribute that is a dunder, or the name of a code-running function */
    for (size_t i = module_len + 1; i < n;) {
        const char *dot = memchr(path + i, '.', n - i);
        size_t e = dot ? (size_t)(dot - path) : n, k = e - i;
        if (k > 4 && memcmp(path + i, "__", 2) == 0 && memcmp(path + e - 2, "__", 2) == 0)
            return "reach interpreter internals through a dunder attribute";
        for (size_t j = 0; j < sizeof code_names / sizeof *code_names; j++)
            if (eq(path + i, k, code_names[j]))
                return "call a function that runs code or commands";
        i = e + 1;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Tensor and data                                                           */
/* ------------------------------------------------------------------------ */

typedef struct known {
    const char *path;
    ts_scan_class cls;
    const char *what;
} known;

#define T TS_SCAN_TENSOR
#define D TS_SCAN_DATA

static const known knowns[] = {
    {"torch._utils._rebuild_tensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_tensor_v2", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_tensor_v3", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_parameter", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_parameter_with_state", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_qtensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_sparse_tensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_sparse_csr_tensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_meta_tensor_no_storage", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_device_tensor_from_cpu_tensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_device_tensor_from_numpy", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_nested_tensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_wrapper_subclass", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_xla_tensor", T, "a tensor rebuild function"},
    {"torch._utils._rebuild_mlc_tensor", T, "a tensor rebuild function"},
    {"torch._tensor._rebuild_from_type_v2", T, "a tensor rebuild function"},
    {"torch._tensor._rebuild_from_type", T, "a tensor rebuild function"},
    {"torch.nn.parameter.Parameter", T, "the parameter class"},
    {"torch.nn.parameter.Buffer", T, "the buffer class"},
    {"torch.nn.parameter.UninitializedParameter", T, "the parameter class"},
    {"torch.Tensor", T, "the tensor class"},
    {"torch._tensor.Tensor", T, "the tensor class"},
    {"torch.Size", T, "torch.Size"},
    {"torch.device", T, "torch.device"},
    {"torch.serialization._get_layout", T, "a tensor layout"},
    {"torch.UntypedStorage", T, "a storage class"},
    {"torch.storage.UntypedStorage", T, "a storage class"},
    {"torch.storage.TypedStorage", T, "a storage class"},
    {"torch.storage._TypedStorage", T, "a storage class"},
    {"torch.jit._pickle.build_intlist", T, "a TorchScript list builder"},
    {"torch.jit._pickle.build_doublelist", T, "a TorchScript list builder"},
    {"torch.jit._pickle.build_boollist", T, "a TorchScript list builder"},
    {"torch.jit._pickle.build_tensorlist", T, "a TorchScript list builder"},
    {"torch.jit._pickle.build_tensor_from_id", T, "a TorchScript list builder"},
    {"torch.jit._pickle.restore_type_tag", T, "a TorchScript type tag"},
    {"builtins.set", D, "a builtin type"},
    {"builtins.frozenset", D, "a builtin type"},
    {"builtins.complex", D, "a builtin type"},
    {"builtins.bytearray", D, "a builtin type"},
    {"builtins.bytes", D, "a builtin type"},
    {"builtins.str", D, "a builtin type"},
    {"builtins.int", D, "a builtin type"},
    {"builtins.float", D, "a builtin type"},
    {"builtins.bool", D, "a builtin type"},
    {"builtins.list", D, "a builtin type"},
    {"builtins.dict", D, "a builtin type"},
    {"builtins.tuple", D, "a builtin type"},
    {"builtins.slice", D, "a builtin type"},
    {"builtins.range", D, "a builtin type"},
    {"builtins.object", D, "a builtin type"},
    {"builtins.NoneType", D, "a builtin type"},
    {"builtins.Ellipsis", D, "a builtin value"},
    {"builtins.NotImplemented", D, "a builtin value"},
    {"_codecs.encode", D, "bytes written as text (pickle protocols 0 to 2)"},
    {"collections.OrderedDict", D, "a collections type"},
    {"collections.Counter", D, "a collections type"},
    {"collections.defaultdict", D, "a collections type"},
    {"collections.deque", D, "a collections type"},
    {"collections.ChainMap", D, "a collections type"},
    {"collections.UserDict", D, "a collections type"},
    {"collections.UserList", D, "a collections type"},
    {"collections.UserString", D, "a collections type"},
    {"copyreg._reconstructor", D, "an object of a class named elsewhere in the pickle"},
    {"copyreg.__newobj__", D, "an object of a class named elsewhere in the pickle"},
    {"copyreg.__newobj_ex__", D, "an object of a class named elsewhere in the pickle"},
    {"datetime.datetime", D, "a date or time"},
    {"datetime.date", D, "a date or time"},
    {"datetime.time", D, "a date or time"},
    {"datetime.timedelta", D, "a date or time"},
    {"datetime.timezone", D, "a date or time"},
    {"decimal.Decimal", D, "a number"},
    {"fractions.Fraction", D, "a number"},
    {"uuid.UUID", D, "a UUID"},
    {"re._compile", D, "a regular expression"},
    {"pathlib.Path", D, "a path (no file is touched)"},
    {"pathlib.PosixPath", D, "a path (no file is touched)"},
    {"pathlib.WindowsPath", D, "a path (no file is touched)"},
    {"pathlib.PurePath", D, "a path (no file is touched)"},
    {"pathlib.PurePosixPath", D, "a path (no file is touched)"},
    {"pathlib.PureWindowsPath", D, "a path (no file is touched)"},
    {"pathlib._local.PosixPath", D, "a path (no file is touched)"},
    {"pathlib._local.WindowsPath", D, "a path (no file is touched)"},
    {"argparse.Namespace", D, "argparse.Namespace: a record of attributes"},
    {"types.SimpleNamespace", D, "a record of attributes"},
    {"numpy.core.multiarray._reconstruct", D, "a NumPy array"},
    {"numpy._core.multiarray._reconstruct", D, "a NumPy array"},
    {"numpy.core.multiarray.scalar", D, "a NumPy scalar"},
    {"numpy._core.multiarray.scalar", D, "a NumPy scalar"},
    {"numpy.core.numeric._frombuffer", D, "a NumPy array"},
    {"numpy._core.numeric._frombuffer", D, "a NumPy array"},
    {"numpy.ndarray", D, "a NumPy array"},
    {"numpy.dtype", D, "a NumPy dtype"},
    {"numpy.ma.core._mareconstruct", D, "a NumPy masked array"},
    {"numpy.ma.core.MaskedArray", D, "a NumPy masked array"},
    {"numpy.matrix", D, "a NumPy matrix"},
    {"numpy.random._pickle.__randomstate_ctor", D, "a NumPy random state"},
    {"numpy.random._pickle.__generator_ctor", D, "a NumPy random generator"},
    {"numpy.random._pickle.__bit_generator_ctor", D, "a NumPy bit generator"},
    {"numpy.random.__RandomState_ctor", D, "a NumPy random state"},
    {"numpy.random.mtrand.RandomState", D, "a NumPy random state"},
    {"joblib.numpy_pickle.NumpyArrayWrapper", D, "a NumPy array (joblib)"},
    {"joblib.numpy_pickle.NDArrayWrapper", D, "a NumPy array (joblib)"},
    {"joblib.numpy_pickle_compat.NDArrayWrapper", D, "a NumPy array (joblib)"},
};

/* torch dtypes, qschemes, layouts and memory formats (torch.<name>). */
static const char *const torch_constants[] = {
    "float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
    "bool", "complex32", "complex64", "complex128", "uint16", "uint32", "uint64",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "bits1x8",
    "bits2x4", "bits4x2", "bits8", "bits16", "float", "double", "half", "short", "int", "long",
    "cfloat", "cdouble", "chalf", "per_tensor_affine", "per_channel_affine",
    "per_tensor_symmetric", "per_channel_symmetric", "per_channel_affine_float_qparams",
    "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn",
    "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
};

/* NumPy's scalar types (numpy.<name>). */
static const char *const numpy_types[] = {
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "float128", "longdouble", "complex64", "complex128",
    "complex256", "clongdouble", "str_", "bytes_", "unicode_", "string_", "object_", "void",
    "datetime64", "timedelta64", "intc", "uintc", "int_", "uint", "longlong", "ulonglong",
    "half", "single", "double", "csingle", "cdouble", "byte", "ubyte", "short", "ushort",
    "intp", "uintp", "generic", "number",
};

static int in_list(const char *s, size_t n, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (eq(s, n, list[i]))
            return 1;
    return 0;
}

#define IN_LIST(s, n, list) in_list((s), (n), (list), sizeof(list) / sizeof *(list))

/* module/name among the patterns of torch.save's globals: storages and
 * tensor classes of torch, torch.cuda, torch.sparse; torch constants. */
static int torch_pattern(const char *m, size_t ml, const char *n, size_t nl)
{
    if (memchr(n, '.', nl))
        return 0;
    int mod = eq(m, ml, "torch") || eq(m, ml, "torch.cuda");
    if (mod && nl > 7 && ends(n, nl, "Storage"))
        return 1;
    if ((mod || eq(m, ml, "torch.sparse") || eq(m, ml, "torch.cuda.sparse")) && nl > 6 &&
        ends(n, nl, "Tensor"))
        return 1;
    return eq(m, ml, "torch") && IN_LIST(n, nl, torch_constants);
}

ts_scan_class ts__global_class(const char *module, size_t module_len, const char *name,
                               size_t name_len, const char **what)
{
    const char *m = module, *n = name;
    size_t ml = module_len, nl = name_len;
    map_global(&m, &ml, &n, &nl);
    char path[1024];
    size_t pl = ml + 1 + nl;
    if (pl < sizeof path) {
        memcpy(path, m, ml);
        path[ml] = '.';
        memcpy(path + ml + 1, n, nl);
        for (size_t i = 0; i < sizeof knowns / sizeof *knowns; i++)
            if (eq(path, pl, knowns[i].path)) {
                *what = knowns[i].what;
                return knowns[i].cls;
            }
    }
    const char *d = ts__global_danger(module, module_len, name, name_len);
    if (d) {
        *what = d;
        return TS_SCAN_DANGEROUS;
    }
    if (torch_pattern(m, ml, n, nl)) {
        *what = ends(n, nl, "Storage") ? "a storage class"
                : ends(n, nl, "Tensor") ? "a tensor class" : "a torch dtype or layout";
        return TS_SCAN_TENSOR;
    }
    if (starts(m, ml, "__torch__.") || eq(m, ml, "__torch__")) {
        *what = "a TorchScript class (a record of attributes, never imported by Python)";
        return TS_SCAN_DATA;
    }
    if ((eq(m, ml, "numpy") && IN_LIST(n, nl, numpy_types)) || eq(m, ml, "numpy.dtypes")) {
        *what = "a NumPy scalar type";
        return TS_SCAN_DATA;
    }
    *what = "not known to tshape: torch.load would import it";
    return TS_SCAN_UNKNOWN;
}

/* ------------------------------------------------------------------------ */
/* torch.load(weights_only=True)                                             */
/* ------------------------------------------------------------------------ */

/* torch 1.13.1: _get_allowed_globals(), as written to a pickle. */
static const char *const wo_1_13[] = {
    "collections.OrderedDict", "torch.nn.parameter.Parameter",
    "torch.serialization._get_layout", "torch.Size", "torch.Tensor",
    /* dtypes: ten of them */
    "torch.complex32", "torch.complex64", "torch.complex128", "torch.float16", "torch.float32",
    "torch.float64", "torch.int8", "torch.int16", "torch.int32", "torch.int64",
    /* storage classes (torch._storage_classes) */
    "torch.storage.UntypedStorage", "torch.storage.TypedStorage",
    /* rebuild functions */
    "torch._utils._rebuild_parameter", "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_sparse_tensor",
    "torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_sparse_csr_tensor",
};

/* torch 2.4: _get_allowed_globals() (add_safe_globals adds to it). */
static const char *const wo_2_4[] = {
    "collections.OrderedDict", "collections.Counter", "torch.nn.parameter.Parameter",
    "torch.serialization._get_layout", "torch.Size", "torch.Tensor", "torch.device",
    /* dtypes: _dtype_to_storage_type_map() and _new_dtypes() */
    "torch.float64", "torch.float32", "torch.float16", "torch.int64", "torch.int32",
    "torch.int16", "torch.int8", "torch.uint8", "torch.bool", "torch.bfloat16",
    "torch.complex128", "torch.complex64", "torch.qint8", "torch.qint32", "torch.quint8",
    "torch.quint4x2", "torch.quint2x4", "torch.float8_e5m2", "torch.float8_e4m3fn",
    "torch.float8_e5m2fnuz", "torch.float8_e4m3fnuz", "torch.bits8", "torch.bits16",
    "torch.bits1x8", "torch.bits2x4", "torch.bits4x2", "torch.complex32", "torch.uint16",
    "torch.uint32", "torch.uint64",
    /* storage classes */
    "torch.storage.UntypedStorage", "torch.storage.TypedStorage", "torch.UntypedStorage",
    "torch.TypedStorage",
    /* quantization */
    "torch.per_tensor_affine", "torch.per_tensor_symmetric", "torch.per_channel_affine",
    "torch.per_channel_symmetric", "torch.per_channel_affine_float_qparams",
    /* rebuild functions */
    "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state",
    "torch._utils._rebuild_qtensor", "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_meta_tensor_no_storage",
    "torch._utils._rebuild_nested_tensor", "torch._utils._rebuild_wrapper_subclass",
    "torch._tensor._rebuild_from_type_v2",
};

/* The tensor classes (torch._tensor_classes) of both versions. */
static const char *const wo_tensor_kinds[] = {"BFloat16", "Char", "Float", "Double", "Half",
                                              "Short", "Byte", "Long", "Int", "Bool"};
/* The legacy storage classes (torch._storage_classes) of both versions:
 * torch.<X>Storage for all of them, torch.cuda.<X>Storage for the first 12. */
static const char *const wo_storage_kinds[] = {
    "Char", "ComplexDouble", "Half", "Short", "BFloat16", "Float", "Int", "Bool", "Long",
    "ComplexFloat", "Byte", "Double", "QUInt8", "QUInt2x4", "QUInt4x2", "QInt32", "QInt8"};

int ts__wo_global(ts__wo_version v, const char *module, size_t module_len, const char *name,
                  size_t name_len)
{
    char path[256];
    if (module_len + 1 + name_len >= sizeof path)
        return 0;
    memcpy(path, module, module_len);
    path[module_len] = '.';
    memcpy(path + module_len + 1, name, name_len);
    size_t n = module_len + 1 + name_len;
    if (v == TS__WO_1_13 ? in_list(path, n, wo_1_13, sizeof wo_1_13 / sizeof *wo_1_13)
                         : in_list(path, n, wo_2_4, sizeof wo_2_4 / sizeof *wo_2_4))
        return 1;
    /* tensor classes: torch, torch.cuda: all ten; torch.sparse,
     * torch.cuda.sparse: all but Bool */
    int plain = eq(module, module_len, "torch") || eq(module, module_len, "torch.cuda");
    int sparse = eq(module, module_len, "torch.sparse") ||
                 eq(module, module_len, "torch.cuda.sparse");
    if ((plain || sparse) && name_len > 6 && ends(name, name_len, "Tensor"))
        for (size_t i = 0; i < sizeof wo_tensor_kinds / sizeof *wo_tensor_kinds; i++)
            if (eq(name, name_len - 6, wo_tensor_kinds[i]))
                return plain || i != 9;
    if (plain && name_len > 7 && ends(name, name_len, "Storage"))
        for (size_t i = 0; i < sizeof wo_storage_kinds / sizeof *wo_storage_kinds; i++)
            if (eq(name, name_len - 7, wo_storage_kinds[i]))
                return eq(module, module_len, "torch") || i < 12;
    return 0;
}

int ts__wo_opcode(ts__wo_version v, unsigned char op)
{
    /* Unpickler.load of torch 1.13; 2.4 adds BINFLOAT */
    static const char ops[] = "a" "e" "h" "J" "K" "M" "Q" "q" "X" "b" "}" "]" ")" "c" "j" "r"
                              "(" "N" "R" "s" "u" "U" "." "t";
    if (op == 0x80 || op == 0x81 || op == 0x85 || op == 0x86 || op == 0x87 || op == 0x88 ||
        op == 0x89 || op == 0x8a || op == 0x8f)
        return 1;
    if (op == 'G')
        return v == TS__WO_2_4;
    return op != 0 && memchr(ops, op, sizeof ops - 1) != NULL;
}
