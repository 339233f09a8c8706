/*
 * evalkit._seqmatch: the score of difflib.SequenceMatcher(None, a, b).ratio() for two
 * str objects, computed in C with the same semantics (same answer to the last bit).
 *
 * MRCR grading calls that ratio once per rollout. CPython's pure-Python matcher spends
 * milliseconds on each multi-kilobyte answer, which dominates a full-run regrade.
 *
 * Semantics reproduced (CPython difflib, isjunk=None, autojunk=True):
 *  - elements are code points; b2j maps each code point of b to its ascending indices;
 *  - when len(b) >= 200, every code point occurring more than len(b) // 100 + 1 times
 *    is "popular" and removed from b2j (it can still be matched by extension);
 *  - find_longest_match scans i ascending and, for each i, the indices j of a[i] in
 *    b2j ascending; a strictly longer run replaces the best one (so ties keep the
 *    earliest i, then the earliest j); the best run is then extended while the
 *    neighbouring elements are equal (no junk set exists when isjunk is None);
 *  - get_matching_blocks recurses left and right of each longest match; the ratio is
 *    2.0 * (sum of block sizes) / (len(a) + len(b)), or 1.0 when both are empty.
 * The sum of block sizes does not depend on the order the sub-ranges are visited in.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Py_UCS4 key;
    Py_ssize_t count; /* occurrences in b; -1 once purged as popular */
    Py_ssize_t start; /* offset of its indices in the positions array */
    int used;
} Slot;

typedef struct {
    Slot *slots;
    size_t mask;
    Py_ssize_t *positions; /* indices of b grouped by code point, each group ascending */
} B2J;

static size_t hash_cp(Py_UCS4 c) { return (size_t)c * 2654435761u; }

static Slot *b2j_find(const B2J *m, Py_UCS4 c) {
    size_t h = hash_cp(c) & m->mask;
    while (m->slots[h].used) {
        if (m->slots[h].key == c) return &m->slots[h];
        h = (h + 1) & m->mask;
    }
    return NULL;
}

static int b2j_build(B2J *m, const Py_UCS4 *b, Py_ssize_t lb) {
    size_t cap = 16;
    while (cap < (size_t)lb * 2 + 2) cap <<= 1;
    m->mask = cap - 1;
    m->slots = calloc(cap, sizeof(Slot));
    m->positions = malloc(sizeof(Py_ssize_t) * (size_t)(lb > 0 ? lb : 1));
    if (!m->slots || !m->positions) return -1;
    for (Py_ssize_t j = 0; j < lb; j++) {
        size_t h = hash_cp(b[j]) & m->mask;
        while (m->slots[h].used && m->slots[h].key != b[j]) h = (h + 1) & m->mask;
        if (!m->slots[h].used) {
            m->slots[h].used = 1;
            m->slots[h].key = b[j];
        }
        m->slots[h].count++;
    }
    Py_ssize_t offset = 0;
    Py_ssize_t ntest = lb / 100 + 1;
    for (size_t s = 0; s < cap; s++) {
        if (!m->slots[s].used) continue;
        m->slots[s].start = offset;
        offset += m->slots[s].count;
    }
    /* Fill positions in ascending j, reusing `count` as a cursor, then restore it. */
    for (size_t s = 0; s < cap; s++) m->slots[s].count = 0;
    for (Py_ssize_t j = 0; j < lb; j++) {
        Slot *slot = b2j_find(m, b[j]);
        m->positions[slot->start + slot->count++] = j;
    }
    if (lb >= 200) {
        for (size_t s = 0; s < cap; s++) {
            if (m->slots[s].used && m->slots[s].count > ntest) m->slots[s].count = -1;
        }
    }
    return 0;
}

typedef struct {
    const Py_UCS4 *a, *b;
    const B2J *b2j;
    Py_ssize_t *len_prev, *len_cur;   /* run length ending at b[j], indexed j (0 = unset) */
    Py_ssize_t *touched_prev, *touched_cur;
} Matcher;

static void longest_match(Matcher *mt, Py_ssize_t alo, Py_ssize_t ahi, Py_ssize_t blo,
                          Py_ssize_t bhi, Py_ssize_t *oi, Py_ssize_t *oj, Py_ssize_t *ok) {
    const Py_UCS4 *a = mt->a, *b = mt->b;
    Py_ssize_t besti = alo, bestj = blo, bestsize = 0;
    Py_ssize_t n_prev = 0, n_cur = 0;
    for (Py_ssize_t i = alo; i < ahi; i++) {
        Slot *slot = b2j_find(mt->b2j, a[i]);
        if (slot != NULL && slot->count > 0) {
            const Py_ssize_t *js = mt->b2j->positions + slot->start;
            for (Py_ssize_t t = 0; t < slot->count; t++) {
                Py_ssize_t j = js[t];
                if (j < blo) continue;
                if (j >= bhi) break;
                Py_ssize_t k = (j > 0 ? mt->len_prev[j - 1] : 0) + 1;
                mt->len_cur[j] = k;
                mt->touched_cur[n_cur++] = j;
                if (k > bestsize) {
                    besti = i - k + 1;
                    bestj = j - k + 1;
                    bestsize = k;
                }
            }
        }
        /* The next i sees only this i's runs: clear the older ones, then swap. */
        for (Py_ssize_t t = 0; t < n_prev; t++) mt->len_prev[mt->touched_prev[t]] = 0;
        Py_ssize_t *tmp = mt->len_prev;
        mt->len_prev = mt->len_cur;
        mt->len_cur = tmp;
        tmp = mt->touched_prev;
        mt->touched_prev = mt->touched_cur;
        mt->touched_cur = tmp;
        n_prev = n_cur;
        n_cur = 0;
    }
    for (Py_ssize_t t = 0; t < n_prev; t++) mt->len_prev[mt->touched_prev[t]] = 0;

    while (besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1]) {
        besti--;
        bestj--;
        bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi &&
           a[besti + bestsize] == b[bestj + bestsize]) {
        bestsize++;
    }
    *oi = besti;
    *oj = bestj;
    *ok = bestsize;
}

static Py_ssize_t matched_total(const Py_UCS4 *a, Py_ssize_t la, const Py_UCS4 *b,
                                Py_ssize_t lb, int *failed) {
    B2J map = {0};
    Matcher mt = {0};
    Py_ssize_t (*stack)[4] = NULL;
    Py_ssize_t total = 0;
    *failed = 1;
    if (b2j_build(&map, b, lb) < 0) goto done;
    size_t n = (size_t)lb + 1;
    mt.a = a;
    mt.b = b;
    mt.b2j = &map;
    mt.len_prev = calloc(n, sizeof(Py_ssize_t));
    mt.len_cur = calloc(n, sizeof(Py_ssize_t));
    mt.touched_prev = malloc(n * sizeof(Py_ssize_t));
    mt.touched_cur = malloc(n * sizeof(Py_ssize_t));
    /* Each match splits a range into at most two smaller ones: la + 1 entries suffice. */
    stack = malloc(sizeof(*stack) * ((size_t)la + 2));
    if (!mt.len_prev || !mt.len_cur || !mt.touched_prev || !mt.touched_cur || !stack) goto done;
    Py_ssize_t top = 0;
    stack[top][0] = 0;
    stack[top][1] = la;
    stack[top][2] = 0;
    stack[top][3] = lb;
    top++;
    while (top > 0) {
        top--;
        Py_ssize_t alo = stack[top][0], ahi = stack[top][1];
        Py_ssize_t blo = stack[top][2], bhi = stack[top][3];
        Py_ssize_t i, j, k;
        longest_match(&mt, alo, ahi, blo, bhi, &i, &j, &k);
        if (k == 0) continue;
        total += k;
        if (alo < i && blo < j) {
            stack[top][0] = alo;
            stack[top][1] = i;
            stack[top][2] = blo;
            stack[top][3] = j;
            top++;
        }
        if (i + k < ahi && j + k < bhi) {
            stack[top][0] = i + k;
            stack[top][1] = ahi;
            stack[top][2] = j + k;
            stack[top][3] = bhi;
            top++;
        }
    }
    *failed = 0;
done:
    free(map.slots);
    free(map.positions);
    free(mt.len_prev);
    free(mt.len_cur);
    free(mt.touched_prev);
    free(mt.touched_cur);
    free(stack);
    return total;
}

static PyObject *seqmatch_ratio(PyObject *self, PyObject *args) {
    PyObject *pa, *pb;
    if (!PyArg_ParseTuple(args, "UU:ratio", &pa, &pb)) return NULL;
    Py_ssize_t la = PyUnicode_GET_LENGTH(pa), lb = PyUnicode_GET_LENGTH(pb);
    if (la + lb == 0) return PyFloat_FromDouble(1.0);
    Py_UCS4 *a = PyUnicode_AsUCS4Copy(pa);
    if (a == NULL) return NULL;
    Py_UCS4 *b = PyUnicode_AsUCS4Copy(pb);
    if (b == NULL) {
        PyMem_Free(a);
        return NULL;
    }
    int failed = 0;
    Py_ssize_t total;
    Py_BEGIN_ALLOW_THREADS
    total = matched_total(a, la, b, lb, &failed);
    Py_END_ALLOW_THREADS
    PyMem_Free(a);
    PyMem_Free(b);
    if (failed) return PyErr_NoMemory();
    return PyFloat_FromDouble(2.0 * (double)total / (double)(la + lb));
}

static PyMethodDef methods[] = {
    {"ratio", seqmatch_ratio, METH_VARARGS,
     "ratio(a, b) -> float: difflib.SequenceMatcher(None, a, b).ratio(), computed in C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_seqmatch",
    "difflib.SequenceMatcher(None, a, b).ratio() for str, computed in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__seqmatch(void) { return PyModule_Create(&module); }
