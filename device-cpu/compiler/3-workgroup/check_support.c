/*
 * Support check: refuses, with a clear build-log line, every kernel this compiler
 * would otherwise turn into wrong answers or into a failure at launch.
 *
 * It runs after the work-group stage, when each wrapper holds all the code its
 * kernel can reach (globaldce has dropped the rest), so only what a kernel really
 * uses is refused, and the log can name that kernel. Refused:
 *  - calls to work-group and sub-group functions other than the barriers and
 *    what the kernel library defines (work-group copies, collectives, sub-group
 *    functions and pipe reservations): the work-group loop runs work-items one
 *    after another, which is correct only without them (barrier and
 *    work_group_barrier never get here: wg_transform.c or wg_fibers.c consumed
 *    them, or the work-group stage failed the build);
 *  - calls to functions defined neither by the program, nor by the kernel
 *    library, nor by the runtime (fiber_rt.c): builtins Kiln does not implement
 *    yet, or a missing user function;
 *  - hook calls that could not be inlined into a wrapper (recursion);
 *  - program-scope variables larger than CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE
 *    (KILN_CC_MAX_VARIABLE_SIZE), which the device promises no program needs.
 */
#include "workgroup.h"

#include <stdlib.h>
#include <string.h>

void kiln_cc_base_name(const char *name, char *buf, size_t size)
{
    const char *s = name;
    size_t len = strlen(name);
    if (strncmp(name, "_Z", 2) == 0) {
        char *end;
        unsigned long n = strtoul(name + 2, &end, 10);
        if (end != name + 2 && n <= strlen(end)) {
            s = end;
            len = n;
        }
    }
    if (len >= size)
        len = size - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
}

static bool is_group_sync(const char *base)
{
    static const char *const exact[] = {"barrier",
                                        "work_group_barrier",
                                        "sub_group_barrier",
                                        "async_work_group_copy",
                                        "async_work_group_strided_copy",
                                        "wait_group_events"};
    static const char *const prefix[] = {"work_group_", "sub_group_", "__work_group_",
                                         "__sub_group_"};
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strcmp(base, exact[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
        if (strncmp(base, prefix[i], strlen(prefix[i])) == 0)
            return true;
    return false;
}

/* The kernel whose wrapper contains `user`, or the name of the function it is in. */
static const char *user_kernel(LLVMValueRef user)
{
    if (!LLVMIsAInstruction(user))
        return "?";
    const char *fn = LLVMGetValueName(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
    size_t n = strlen(KILN_CC_WG_PREFIX);
    if (strncmp(fn, KILN_CC_WG_PREFIX, n) == 0)
        return fn + n;
    n = strlen(KILN_CC_WI_PREFIX);
    return strncmp(fn, KILN_CC_WI_PREFIX, n) == 0 ? fn + n : fn;
}

static bool check_function(struct kiln_cc_build *b, LLVMValueRef fn)
{
    const char *name = LLVMGetValueName(fn);
    LLVMUseRef use = LLVMGetFirstUse(fn);
    char base[128];

    if (!LLVMIsDeclaration(fn) || !use || strncmp(name, "llvm.", 5) == 0)
        return true;
    if (strcmp(name, KILN_CC_FIBER_RUN) == 0 || strcmp(name, KILN_CC_FIBER_BARRIER) == 0)
        return true;
    const char *kernel = user_kernel(LLVMGetUser(use));
    if (strcmp(name, KILN_CC_HOOK_CTX) == 0 || strcmp(name, KILN_CC_HOOK_LOCAL_ID) == 0 ||
        strcmp(name, KILN_CC_HOOK_LEADER) == 0) {
        kiln_cc_log_printf(b->log,
                           "error: '%s' could not be inlined into a kernel; recursive "
                           "functions are not supported\n",
                           kernel);
        return false;
    }
    kiln_cc_base_name(name, base, sizeof(base));
    if (is_group_sync(base)) {
        kiln_cc_log_printf(b->log,
                           "error: kernel '%s' calls %s(): barriers, work-group and sub-group "
                           "functions are not supported by this version of Kiln\n",
                           kernel, base);
        return false;
    }
    if (strcmp(base, name) == 0)
        kiln_cc_log_printf(b->log, "error: kernel '%s' calls undefined function '%s'\n", kernel,
                           name);
    else
        kiln_cc_log_printf(b->log,
                           "error: kernel '%s' calls undefined function '%s' (%s): this "
                           "builtin is not implemented by this version of Kiln\n",
                           kernel, base, name);
    return false;
}

/* Writable program-scope variables: the global address space, not constant. */
static bool check_variables(struct kiln_cc_build *b)
{
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->mod);
    bool ok = true;
    for (LLVMValueRef g = LLVMGetFirstGlobal(b->mod); g; g = LLVMGetNextGlobal(g)) {
        if (LLVMIsDeclaration(g) || LLVMIsGlobalConstant(g) ||
            LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != KILN_CC_AS_GLOBAL)
            continue;
        unsigned long long size = LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
        if (size <= KILN_CC_MAX_VARIABLE_SIZE)
            continue;
        size_t len;
        const char *name = LLVMGetValueName2(g, &len);
        kiln_cc_log_printf(b->log,
                           "error: program-scope variable '%.*s' is %llu bytes, more than "
                           "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE (%zu)\n",
                           (int)len, name, size, KILN_CC_MAX_VARIABLE_SIZE);
        ok = false;
    }
    return ok;
}

enum kiln_cc_status kiln_cc_check_support(struct kiln_cc_build *b)
{
    bool ok = check_variables(b);

    for (LLVMValueRef fn = LLVMGetFirstFunction(b->mod); fn; fn = LLVMGetNextFunction(fn))
        ok &= check_function(b, fn);
    return ok ? KILN_CC_OK : KILN_CC_BUILD_FAILED;
}
