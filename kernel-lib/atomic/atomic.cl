/*
 * Atomic functions (OpenCL C 3.0 §6.15.12): the OpenCL 1.x functions (atomic_add ...
 * atomic_cmpxchg, float atomic_xchg), the cl_khr_*_atomics atom_* forms for 32- and
 * 64-bit integers, and the C11-style functions (atomic_init, atomic_load, atomic_store,
 * atomic_exchange, atomic_compare_exchange_strong/weak, atomic_fetch_<op>, atomic_flag_*)
 * with their _explicit forms.
 *
 * Two implementations, chosen by the address space of the object:
 *
 *  - __global and generic objects may be touched by several work-groups at once, which
 *    run on different threads: they get real atomic instructions (Clang's __c11_atomic_*
 *    builtins). The memory order is mapped onto the matching LLVM ordering through a
 *    chain of comparisons with constants, which folds away once the call is inlined
 *    with a constant order; an order that is not one of OpenCL's values is taken as
 *    seq_cst. The scope is ignored: every scope becomes LLVM's system scope, which is
 *    at least as strong as any OpenCL scope. The OpenCL 1.x functions are seq_cst.
 *  - __local objects belong to one work-group, whose work-items all run on one thread
 *    and switch only at barriers (region transform or fibers), so an atomic operation
 *    on them is a volatile load and store: nothing can interleave with it. Volatile
 *    keeps the compiler from tagging them as parallel accesses of the work-item loop.
 *    The generic bodies of the read-modify-writes, stores, compare-exchanges and flag
 *    functions check whether the pointer lies in the worker's __local arena and take
 *    this path if so (kiln_arena.h).
 *
 * compare_exchange compares the bits of the values (as C11's memcmp does), so a float
 * NaN can match itself and -0.0 does not match +0.0. The _weak forms never fail
 * spuriously. The atomic_fetch_<op> forms whose operand type differs from the object's
 * (atomic_uintptr_t with ptrdiff_t or intptr_t, atomic_intptr_t with uintptr_t) convert
 * the operand to the object's type and operate with the object's signedness.
 */
#include "kiln_arena.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* The atomic type of T (OpenCL C spells them as typedefs, not _Atomic(T)). */
#define KILN_A(T) kiln_atomic_##T
typedef atomic_int kiln_atomic_int;
typedef atomic_uint kiln_atomic_uint;
typedef atomic_long kiln_atomic_long;
typedef atomic_ulong kiln_atomic_ulong;
typedef atomic_float kiln_atomic_float;
typedef atomic_double kiln_atomic_double;

/* ---- orders ---------------------------------------------------------------------- */

/* A read-modify-write `__c11_atomic_<OP>(q, v, order)` at OpenCL order `o`. */
#define KILN_RMW_ORDERED(OP, q, v, o)                                                              \
    ((o) == memory_order_relaxed   ? __c11_atomic_##OP(q, v, __ATOMIC_RELAXED)                     \
     : (o) == memory_order_acquire ? __c11_atomic_##OP(q, v, __ATOMIC_ACQUIRE)                     \
     : (o) == memory_order_release ? __c11_atomic_##OP(q, v, __ATOMIC_RELEASE)                     \
     : (o) == memory_order_acq_rel ? __c11_atomic_##OP(q, v, __ATOMIC_ACQ_REL)                     \
                                   : __c11_atomic_##OP(q, v, __ATOMIC_SEQ_CST))

/* A load: release and acq_rel are not load orders; they and unknown values are seq_cst. */
#define KILN_LOAD_ORDERED(q, o)                                                                    \
    ((o) == memory_order_relaxed   ? __c11_atomic_load(q, __ATOMIC_RELAXED)                        \
     : (o) == memory_order_acquire ? __c11_atomic_load(q, __ATOMIC_ACQUIRE)                        \
                                   : __c11_atomic_load(q, __ATOMIC_SEQ_CST))

/* A store: acquire and acq_rel are not store orders; they and unknown values are seq_cst. */
#define KILN_STORE_ORDERED(q, v, o)                                                                \
    ((o) == memory_order_relaxed   ? __c11_atomic_store(q, v, __ATOMIC_RELAXED)                    \
     : (o) == memory_order_release ? __c11_atomic_store(q, v, __ATOMIC_RELEASE)                    \
                                   : __c11_atomic_store(q, v, __ATOMIC_SEQ_CST))

/*
 * A compare-exchange with success order `os` and failure order `of`: one LLVM ordering
 * pair at least as strong as both (LLVM forbids release failure orderings).
 */
#define KILN_CAS_ONE(q, e, d, S, F) __c11_atomic_compare_exchange_strong(q, e, d, S, F)
#define KILN_CAS_ACQ(o)             ((o) == memory_order_relaxed || (o) == memory_order_acquire)
#define KILN_CAS_ORDERED(q, e, d, os, of)                                                          \
    ((os) == memory_order_relaxed && (of) == memory_order_relaxed                                  \
         ? KILN_CAS_ONE(q, e, d, __ATOMIC_RELAXED, __ATOMIC_RELAXED)                               \
     : KILN_CAS_ACQ(os) && KILN_CAS_ACQ(of)                                                        \
         ? KILN_CAS_ONE(q, e, d, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)                               \
     : (os) == memory_order_release && (of) == memory_order_relaxed                                \
         ? KILN_CAS_ONE(q, e, d, __ATOMIC_RELEASE, __ATOMIC_RELAXED)                               \
     : ((os) == memory_order_release || (os) == memory_order_acq_rel) && KILN_CAS_ACQ(of)          \
         ? KILN_CAS_ONE(q, e, d, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)                               \
         : KILN_CAS_ONE(q, e, d, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))

/* ---- __local objects: one thread, plain volatile accesses -------------------------- */

/* The new value of a read-modify-write, computed in unsigned type U so that it wraps. */
#define KILN_LOP_fetch_add(T, U, a, b) ((T)((U)(a) + (U)(b)))
#define KILN_LOP_fetch_sub(T, U, a, b) ((T)((U)(a) - (U)(b)))
#define KILN_LOP_fetch_or(T, U, a, b)  ((a) | (b))
#define KILN_LOP_fetch_xor(T, U, a, b) ((a) ^ (b))
#define KILN_LOP_fetch_and(T, U, a, b) ((a) & (b))
#define KILN_LOP_fetch_min(T, U, a, b) ((b) < (a) ? (b) : (a))
#define KILN_LOP_fetch_max(T, U, a, b) ((b) > (a) ? (b) : (a))
#define KILN_LOP_exchange(T, U, a, b)  (b)

/* `return` the old value of *p after applying OP with v; p is a __local object of T. */
#define KILN_LOCAL_RMW(OP, T, U, p, v)                                                             \
    volatile __local T *kiln_l = (volatile __local T *)(p);                                        \
    T kiln_old = *kiln_l;                                                                          \
    *kiln_l = KILN_LOP_##OP(T, U, kiln_old, (T)(v));                                               \
    return kiln_old

/* `return` whether *p held the bits of *e; store d if so, else the old value into *e. */
#define KILN_LOCAL_CAS(T, U, p, e, d)                                                              \
    volatile __local T *kiln_l = (volatile __local T *)(p);                                        \
    T kiln_old = *kiln_l;                                                                          \
    T kiln_exp = *(e);                                                                             \
    bool kiln_ok = __builtin_astype(kiln_old, U) == __builtin_astype(kiln_exp, U);                 \
    if (kiln_ok)                                                                                   \
        *kiln_l = (d);                                                                             \
    else                                                                                           \
        *(e) = kiln_old;                                                                           \
    return kiln_ok

/* ---- __global and generic objects: real atomics ------------------------------------- */

#define KILN_REAL_CAS(T, q, e, d, os, of)                                                          \
    T kiln_exp = *(e);                                                                             \
    bool kiln_ok = KILN_CAS_ORDERED(q, &kiln_exp, d, os, of);                                      \
    if (!kiln_ok)                                                                                  \
        *(e) = kiln_exp;                                                                           \
    return kiln_ok

/* ---- OpenCL 1.x functions and atom_* ------------------------------------------------ */

/* The two-operand functions: NAME(volatile AS T *p, T v), seq_cst. */
#define KILN_LEGACY2_GLOBAL(NAME, OP, T, U)                                                        \
    T KILN_OVERLOAD NAME(volatile __global T *p, T v)                                              \
    {                                                                                              \
        return __c11_atomic_##OP((__global KILN_A(T) *)p, v, __ATOMIC_SEQ_CST);                    \
    }
#define KILN_LEGACY2_LOCAL(NAME, OP, T, U)                                                         \
    T KILN_OVERLOAD NAME(volatile __local T *p, T v)                                               \
    {                                                                                              \
        KILN_LOCAL_RMW(OP, T, U, p, v);                                                            \
    }
#define KILN_LEGACY2(NAME, OP, T, U)                                                               \
    KILN_LEGACY2_GLOBAL(NAME, OP, T, U) KILN_LEGACY2_LOCAL(NAME, OP, T, U)

/* inc, dec and cmpxchg. */
#define KILN_LEGACY_REST(PREFIX, T, U, AS, IMPL)                                                   \
    T KILN_OVERLOAD PREFIX##_inc(volatile AS T *p)                                                 \
    {                                                                                              \
        return PREFIX##_add(p, (T)1);                                                              \
    }                                                                                              \
    T KILN_OVERLOAD PREFIX##_dec(volatile AS T *p)                                                 \
    {                                                                                              \
        return PREFIX##_sub(p, (T)1);                                                              \
    }                                                                                              \
    T KILN_OVERLOAD PREFIX##_cmpxchg(volatile AS T *p, T cmp, T val)                               \
    {                                                                                              \
        IMPL(T, U, p, cmp, val);                                                                   \
    }
#define KILN_LEGACY_CAS_GLOBAL(T, U, p, cmp, val)                                                  \
    __c11_atomic_compare_exchange_strong((__global KILN_A(T) *)p, &cmp, val, __ATOMIC_SEQ_CST,     \
                                         __ATOMIC_SEQ_CST);                                        \
    return cmp
#define KILN_LEGACY_CAS_LOCAL(T, U, p, cmp, val)                                                   \
    volatile __local T *kiln_l = p;                                                                \
    T kiln_old = *kiln_l;                                                                          \
    *kiln_l = kiln_old == cmp ? val : kiln_old;                                                    \
    return kiln_old

#define KILN_LEGACY(PREFIX, T, U)                                                                  \
    KILN_LEGACY2(PREFIX##_add, fetch_add, T, U)                                                    \
    KILN_LEGACY2(PREFIX##_sub, fetch_sub, T, U)                                                    \
    KILN_LEGACY2(PREFIX##_xchg, exchange, T, U)                                                    \
    KILN_LEGACY2(PREFIX##_min, fetch_min, T, U)                                                    \
    KILN_LEGACY2(PREFIX##_max, fetch_max, T, U)                                                    \
    KILN_LEGACY2(PREFIX##_and, fetch_and, T, U)                                                    \
    KILN_LEGACY2(PREFIX##_or, fetch_or, T, U)                                                      \
    KILN_LEGACY2(PREFIX##_xor, fetch_xor, T, U)                                                    \
    KILN_LEGACY_REST(PREFIX, T, U, __global, KILN_LEGACY_CAS_GLOBAL)                               \
    KILN_LEGACY_REST(PREFIX, T, U, __local, KILN_LEGACY_CAS_LOCAL)

KILN_LEGACY(atomic, int, uint)
KILN_LEGACY(atomic, uint, uint)
KILN_LEGACY(atom, int, uint)
KILN_LEGACY(atom, uint, uint)
KILN_LEGACY(atom, long, ulong)
KILN_LEGACY(atom, ulong, ulong)
KILN_LEGACY2(atomic_xchg, exchange, float, uint)

/* ---- C11-style functions ------------------------------------------------------------ */

/*
 * Each function has two bodies: the generic-object form of its _explicit variant with
 * a scope (real atomics) and the __local-object form of it (plain accesses). Every
 * other form calls one of them: the shorter forms pass seq_cst and device scope, and
 * __global objects take the generic body. Inlining folds the calls away, and the
 * library stays small.
 */

/* Read-modify-writes: atomic_exchange and atomic_fetch_<op>; V is the operand type. */
#define KILN_C11_RMW_REAL(NAME, OP, T, U)                                                          \
    T KILN_OVERLOAD NAME##_explicit(volatile KILN_A(T) * p, T v, memory_order o, memory_scope s)   \
    {                                                                                              \
        if (kiln_in_local_arena(p))                                                                \
            return NAME##_explicit((volatile __local KILN_A(T) *)p, v, o, s);                      \
        return KILN_RMW_ORDERED(OP, (KILN_A(T) *)p, v, o);                                         \
    }
#define KILN_C11_RMW_LOCAL(NAME, OP, T, U)                                                         \
    T KILN_OVERLOAD NAME##_explicit(volatile __local KILN_A(T) * p, T v, memory_order o,           \
                                    memory_scope s)                                                \
    {                                                                                              \
        (void)o;                                                                                   \
        (void)s;                                                                                   \
        KILN_LOCAL_RMW(OP, T, U, p, v);                                                            \
    }
/* The 4-argument form for object space AS, calling the body of space TAS. */
#define KILN_C11_RMW_FWD(NAME, AS, TAS, T, V)                                                      \
    T KILN_OVERLOAD NAME##_explicit(volatile AS KILN_A(T) * p, V v, memory_order o,                \
                                    memory_scope s)                                                \
    {                                                                                              \
        return NAME##_explicit((volatile TAS KILN_A(T) *)p, (T)v, o, s);                           \
    }
/* The forms without a scope, or without an order. */
#define KILN_C11_RMW_SHORT(NAME, AS, T, V)                                                         \
    T KILN_OVERLOAD NAME(volatile AS KILN_A(T) * p, V v)                                           \
    {                                                                                              \
        return NAME##_explicit(p, v, memory_order_seq_cst, memory_scope_device);                   \
    }                                                                                              \
    T KILN_OVERLOAD NAME##_explicit(volatile AS KILN_A(T) * p, V v, memory_order o)                \
    {                                                                                              \
        return NAME##_explicit(p, v, o, memory_scope_device);                                      \
    }
#define KILN_C11_RMW(NAME, OP, T, U)                                                               \
    KILN_C11_RMW_LOCAL(NAME, OP, T, U)                                                             \
    KILN_C11_RMW_REAL(NAME, OP, T, U)                                                              \
    KILN_C11_RMW_FWD(NAME, __global, , T, T)                                                       \
    KILN_C11_RMW_SHORT(NAME, , T, T)                                                               \
    KILN_C11_RMW_SHORT(NAME, __global, T, T)                                                       \
    KILN_C11_RMW_SHORT(NAME, __local, T, T)
/* A mixed-operand form of the full header (object of T, operand of V). */
#define KILN_C11_RMW_MIXED(NAME, AS, TAS, T, V)                                                    \
    KILN_C11_RMW_FWD(NAME, AS, TAS, T, V)                                                          \
    KILN_C11_RMW_SHORT(NAME, AS, T, V)

/* atomic_init, atomic_load, atomic_store. */
#define KILN_C11_LS_BODIES(T)                                                                      \
    void KILN_OVERLOAD atomic_init(volatile KILN_A(T) * p, T v)                                    \
    {                                                                                              \
        __c11_atomic_init((KILN_A(T) *)p, v);                                                      \
    }                                                                                              \
    void KILN_OVERLOAD atomic_init(volatile __local KILN_A(T) * p, T v)                            \
    {                                                                                              \
        *(volatile __local T *)p = v;                                                              \
    }                                                                                              \
    void KILN_OVERLOAD atomic_init(volatile __global KILN_A(T) * p, T v)                           \
    {                                                                                              \
        atomic_init((volatile KILN_A(T) *)p, v);                                                   \
    }                                                                                              \
    T KILN_OVERLOAD atomic_load_explicit(volatile KILN_A(T) * p, memory_order o, memory_scope s)   \
    {                                                                                              \
        (void)s;                                                                                   \
        return KILN_LOAD_ORDERED((KILN_A(T) *)p, o);                                               \
    }                                                                                              \
    T KILN_OVERLOAD atomic_load_explicit(volatile __local KILN_A(T) * p, memory_order o,           \
                                         memory_scope s)                                           \
    {                                                                                              \
        (void)o;                                                                                   \
        (void)s;                                                                                   \
        return *(volatile __local T *)p;                                                           \
    }                                                                                              \
    T KILN_OVERLOAD atomic_load_explicit(volatile __global KILN_A(T) * p, memory_order o,          \
                                         memory_scope s)                                           \
    {                                                                                              \
        return atomic_load_explicit((volatile KILN_A(T) *)p, o, s);                                \
    }                                                                                              \
    void KILN_OVERLOAD atomic_store_explicit(volatile __local KILN_A(T) * p, T v, memory_order o,  \
                                             memory_scope s)                                       \
    {                                                                                              \
        (void)o;                                                                                   \
        (void)s;                                                                                   \
        *(volatile __local T *)p = v;                                                              \
    }                                                                                              \
    void KILN_OVERLOAD atomic_store_explicit(volatile KILN_A(T) * p, T v, memory_order o,          \
                                             memory_scope s)                                       \
    {                                                                                              \
        if (kiln_in_local_arena(p))                                                                \
            atomic_store_explicit((volatile __local KILN_A(T) *)p, v, o, s);                       \
        else                                                                                       \
            KILN_STORE_ORDERED((KILN_A(T) *)p, v, o);                                              \
    }                                                                                              \
    void KILN_OVERLOAD atomic_store_explicit(volatile __global KILN_A(T) * p, T v, memory_order o, \
                                             memory_scope s)                                       \
    {                                                                                              \
        atomic_store_explicit((volatile KILN_A(T) *)p, v, o, s);                                   \
    }
#define KILN_C11_LS_SHORT(AS, T)                                                                   \
    T KILN_OVERLOAD atomic_load(volatile AS KILN_A(T) * p)                                         \
    {                                                                                              \
        return atomic_load_explicit(p, memory_order_seq_cst, memory_scope_device);                 \
    }                                                                                              \
    T KILN_OVERLOAD atomic_load_explicit(volatile AS KILN_A(T) * p, memory_order o)                \
    {                                                                                              \
        return atomic_load_explicit(p, o, memory_scope_device);                                    \
    }                                                                                              \
    void KILN_OVERLOAD atomic_store(volatile AS KILN_A(T) * p, T v)                                \
    {                                                                                              \
        atomic_store_explicit(p, v, memory_order_seq_cst, memory_scope_device);                    \
    }                                                                                              \
    void KILN_OVERLOAD atomic_store_explicit(volatile AS KILN_A(T) * p, T v, memory_order o)       \
    {                                                                                              \
        atomic_store_explicit(p, v, o, memory_scope_device);                                       \
    }
#define KILN_C11_LS(T)                                                                             \
    KILN_C11_LS_BODIES(T)                                                                          \
    KILN_C11_LS_SHORT(, T)                                                                         \
    KILN_C11_LS_SHORT(__global, T)                                                                 \
    KILN_C11_LS_SHORT(__local, T)

/*
 * atomic_compare_exchange_{strong,weak}[_explicit]. The bodies take a generic
 * `expected`; the __local-object body with a generic `expected` is Kiln's own overload.
 */
#define KILN_C11_CAS_BODIES(T, U)                                                                  \
    bool KILN_OVERLOAD atomic_compare_exchange_strong_explicit(volatile __local KILN_A(T) * p,     \
                                                               T * e, T d, memory_order os,        \
                                                               memory_order of, memory_scope s)    \
    {                                                                                              \
        (void)os;                                                                                  \
        (void)of;                                                                                  \
        (void)s;                                                                                   \
        KILN_LOCAL_CAS(T, U, p, e, d);                                                             \
    }                                                                                              \
    bool KILN_OVERLOAD atomic_compare_exchange_strong_explicit(                                    \
        volatile KILN_A(T) * p, T * e, T d, memory_order os, memory_order of, memory_scope s)      \
    {                                                                                              \
        if (kiln_in_local_arena(p))                                                                \
            return atomic_compare_exchange_strong_explicit((volatile __local KILN_A(T) *)p, e, d,  \
                                                           os, of, s);                             \
        KILN_REAL_CAS(T, (KILN_A(T) *)p, e, d, os, of);                                            \
    }
/* Object space AS, `expected` space EAS, calling the body of object space TAS. */
#define KILN_C11_CAS_FORMS(NAME, AS, EAS, TAS, T)                                                  \
    bool KILN_OVERLOAD NAME##_explicit(volatile AS KILN_A(T) * p, EAS T * e, T d, memory_order os, \
                                       memory_order of, memory_scope s)                            \
    {                                                                                              \
        return atomic_compare_exchange_strong_explicit((volatile TAS KILN_A(T) *)p, (T *)e, d, os, \
                                                       of, s);                                     \
    }                                                                                              \
    bool KILN_OVERLOAD NAME##_explicit(volatile AS KILN_A(T) * p, EAS T * e, T d, memory_order os, \
                                       memory_order of)                                            \
    {                                                                                              \
        return NAME##_explicit(p, e, d, os, of, memory_scope_device);                              \
    }                                                                                              \
    bool KILN_OVERLOAD NAME(volatile AS KILN_A(T) * p, EAS T * e, T d)                             \
    {                                                                                              \
        return NAME##_explicit(p, e, d, memory_order_seq_cst, memory_order_seq_cst,                \
                               memory_scope_device);                                               \
    }
/* Every form but the strong generic body itself, which KILN_C11_CAS_BODIES defines. */
#define KILN_C11_CAS_AS(AS, EAS, TAS, T)                                                           \
    KILN_C11_CAS_FORMS(atomic_compare_exchange_weak, AS, EAS, TAS, T)                              \
    bool KILN_OVERLOAD atomic_compare_exchange_strong_explicit(                                    \
        volatile AS KILN_A(T) * p, EAS T * e, T d, memory_order os, memory_order of)               \
    {                                                                                              \
        return atomic_compare_exchange_strong_explicit(p, e, d, os, of, memory_scope_device);      \
    }                                                                                              \
    bool KILN_OVERLOAD atomic_compare_exchange_strong(volatile AS KILN_A(T) * p, EAS T * e, T d)   \
    {                                                                                              \
        return atomic_compare_exchange_strong_explicit(p, e, d, memory_order_seq_cst,              \
                                                       memory_order_seq_cst, memory_scope_device); \
    }
#define KILN_C11_CAS_STRONG_FWD(AS, EAS, TAS, T)                                                   \
    bool KILN_OVERLOAD atomic_compare_exchange_strong_explicit(volatile AS KILN_A(T) * p,          \
                                                               EAS T * e, T d, memory_order os,    \
                                                               memory_order of, memory_scope s)    \
    {                                                                                              \
        return atomic_compare_exchange_strong_explicit((volatile TAS KILN_A(T) *)p, (T *)e, d, os, \
                                                       of, s);                                     \
    }
#define KILN_C11_CAS_NAMED(AS, EAS, TAS, T)                                                        \
    KILN_C11_CAS_STRONG_FWD(AS, EAS, TAS, T)                                                       \
    KILN_C11_CAS_AS(AS, EAS, TAS, T)
#define KILN_C11_CAS(T, U)                                                                         \
    KILN_C11_CAS_BODIES(T, U)                                                                      \
    KILN_C11_CAS_AS(, , , T)                                                                       \
    KILN_C11_CAS_NAMED(__global, __global, , T)                                                    \
    KILN_C11_CAS_NAMED(__global, __local, , T)                                                     \
    KILN_C11_CAS_NAMED(__global, __private, , T)                                                   \
    KILN_C11_CAS_NAMED(__local, __global, __local, T)                                              \
    KILN_C11_CAS_NAMED(__local, __local, __local, T)                                               \
    KILN_C11_CAS_NAMED(__local, __private, __local, T)

/* Everything an atomic type has; the integer types add atomic_fetch_<op>. */
#define KILN_C11_ANY(T, U)                                                                         \
    KILN_C11_LS(T)                                                                                 \
    KILN_C11_RMW(atomic_exchange, exchange, T, U)                                                  \
    KILN_C11_CAS(T, U)
#define KILN_C11_INT(T, U)                                                                         \
    KILN_C11_ANY(T, U)                                                                             \
    KILN_C11_RMW(atomic_fetch_add, fetch_add, T, U)                                                \
    KILN_C11_RMW(atomic_fetch_sub, fetch_sub, T, U)                                                \
    KILN_C11_RMW(atomic_fetch_or, fetch_or, T, U)                                                  \
    KILN_C11_RMW(atomic_fetch_xor, fetch_xor, T, U)                                                \
    KILN_C11_RMW(atomic_fetch_and, fetch_and, T, U)                                                \
    KILN_C11_RMW(atomic_fetch_min, fetch_min, T, U)                                                \
    KILN_C11_RMW(atomic_fetch_max, fetch_max, T, U)

KILN_C11_INT(int, uint)
KILN_C11_INT(uint, uint)
KILN_C11_INT(long, ulong)
KILN_C11_INT(ulong, ulong)
KILN_C11_ANY(float, uint)
KILN_C11_ANY(double, ulong)

/* The mixed intptr_t/uintptr_t/ptrdiff_t forms (the generic ones only for add and sub). */
#define KILN_C11_MIXED(NAME, T, V)                                                                 \
    KILN_C11_RMW_MIXED(NAME, __global, , T, V)                                                     \
    KILN_C11_RMW_MIXED(NAME, __local, __local, T, V)
KILN_C11_RMW_MIXED(atomic_fetch_add, , , ulong, long)
KILN_C11_RMW_MIXED(atomic_fetch_sub, , , ulong, long)
KILN_C11_MIXED(atomic_fetch_add, ulong, long)
KILN_C11_MIXED(atomic_fetch_sub, ulong, long)
KILN_C11_MIXED(atomic_fetch_or, ulong, long)
KILN_C11_MIXED(atomic_fetch_xor, ulong, long)
KILN_C11_MIXED(atomic_fetch_and, ulong, long)
KILN_C11_MIXED(atomic_fetch_min, ulong, long)
KILN_C11_MIXED(atomic_fetch_or, long, ulong)
KILN_C11_MIXED(atomic_fetch_xor, long, ulong)
KILN_C11_MIXED(atomic_fetch_and, long, ulong)
KILN_C11_MIXED(atomic_fetch_min, long, ulong)

/* atomic_flag_test_and_set and atomic_flag_clear (atomic_flag is an atomic_int). */
bool KILN_OVERLOAD atomic_flag_test_and_set_explicit(volatile __local atomic_flag *p,
                                                     memory_order o, memory_scope s)
{
    (void)o;
    (void)s;
    volatile __local int *l = (volatile __local int *)p;
    int old = *l;
    *l = 1;
    return old != 0;
}

void KILN_OVERLOAD atomic_flag_clear_explicit(volatile __local atomic_flag *p, memory_order o,
                                              memory_scope s)
{
    (void)o;
    (void)s;
    *(volatile __local int *)p = 0;
}

bool KILN_OVERLOAD atomic_flag_test_and_set_explicit(volatile atomic_flag *p, memory_order o,
                                                     memory_scope s)
{
    if (kiln_in_local_arena(p))
        return atomic_flag_test_and_set_explicit((volatile __local atomic_flag *)p, o, s);
    return KILN_RMW_ORDERED(exchange, (atomic_int *)p, 1, o) != 0;
}

void KILN_OVERLOAD atomic_flag_clear_explicit(volatile atomic_flag *p, memory_order o,
                                              memory_scope s)
{
    if (kiln_in_local_arena(p))
        atomic_flag_clear_explicit((volatile __local atomic_flag *)p, o, s);
    else
        KILN_STORE_ORDERED((atomic_int *)p, 0, o);
}

bool KILN_OVERLOAD atomic_flag_test_and_set_explicit(volatile __global atomic_flag *p,
                                                     memory_order o, memory_scope s)
{
    return atomic_flag_test_and_set_explicit((volatile atomic_flag *)p, o, s);
}

void KILN_OVERLOAD atomic_flag_clear_explicit(volatile __global atomic_flag *p, memory_order o,
                                              memory_scope s)
{
    atomic_flag_clear_explicit((volatile atomic_flag *)p, o, s);
}

#define KILN_C11_FLAG_SHORT(AS)                                                                    \
    bool KILN_OVERLOAD atomic_flag_test_and_set(volatile AS atomic_flag *p)                        \
    {                                                                                              \
        return atomic_flag_test_and_set_explicit(p, memory_order_seq_cst, memory_scope_device);    \
    }                                                                                              \
    bool KILN_OVERLOAD atomic_flag_test_and_set_explicit(volatile AS atomic_flag *p,               \
                                                         memory_order o)                           \
    {                                                                                              \
        return atomic_flag_test_and_set_explicit(p, o, memory_scope_device);                       \
    }                                                                                              \
    void KILN_OVERLOAD atomic_flag_clear(volatile AS atomic_flag *p)                               \
    {                                                                                              \
        atomic_flag_clear_explicit(p, memory_order_seq_cst, memory_scope_device);                  \
    }                                                                                              \
    void KILN_OVERLOAD atomic_flag_clear_explicit(volatile AS atomic_flag *p, memory_order o)      \
    {                                                                                              \
        atomic_flag_clear_explicit(p, o, memory_scope_device);                                     \
    }
KILN_C11_FLAG_SHORT()
KILN_C11_FLAG_SHORT(__global)
KILN_C11_FLAG_SHORT(__local)
