/*
 * Loading the compiler library. The runtime never links LLVM: libkiln-cc.so is
 * opened on the first program build, from the directory libkiln.so was loaded
 * from, so clinfo and programs that never build start fast.
 */
#include "rt_program.h"
#include "rt_debug.h"
#include "rt_device.h"

#include "kiln_cc.h"

#include <pthread.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CC_LIBRARY "libkiln-cc.so"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct kiln_cc_interface *iface;

static void load(void)
{
    Dl_info info;
    char path[PATH_MAX];
    if (dladdr((void *)&kiln_rt_compiler, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        int dir_len = slash ? (int)(slash - info.dli_fname) : 0;
        snprintf(path, sizeof(path), "%.*s%s%s", dir_len, info.dli_fname, slash ? "/" : "",
                 CC_LIBRARY);
    } else {
        snprintf(path, sizeof(path), "%s", CC_LIBRARY);
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        KILN_LOG(KILN_DBG_ERR, "cannot load the compiler: %s", dlerror());
        return;
    }
    kiln_cc_interface_fn get = (kiln_cc_interface_fn)dlsym(lib, KILN_CC_INTERFACE_SYMBOL);
    const struct kiln_cc_interface *cc = get ? get() : NULL;
    if (!cc || cc->abi_version != KILN_CC_ABI_VERSION) {
        KILN_LOG(KILN_DBG_ERR, "%s does not match this runtime", path);
        return;
    }
    /* A kernel sees exactly the language the device reports. */
    if (cc->set_language(kiln_rt_device_extensions(), kiln_rt_device_features()) != KILN_CC_OK) {
        KILN_LOG(KILN_DBG_ERR, "the compiler could not take the device's language");
        return;
    }
    /* The library stays loaded for the life of the process: JIT code lives in it. */
    iface = cc;
}

cl_int kiln_rt_compiler(const struct kiln_cc_interface **out)
{
    pthread_once(&load_once, load);
    *out = iface;
    if (!iface)
        return KILN_ERR(CL_COMPILER_NOT_AVAILABLE, "the compiler library could not be loaded");
    return CL_SUCCESS;
}

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static char driver_version[32] = KILN_RT_VERSION;

/* KILN_RT_VERSION, then "+" and a hash of what binaries are made for, where it is known. */
static void make_version(void)
{
    const struct kiln_cc_interface *cc;
    const char *target = kiln_rt_compiler(&cc) == CL_SUCCESS ? cc->target() : NULL;
    if (!target)
        return;
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *c = target; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    snprintf(driver_version, sizeof(driver_version), "%s+%08x", KILN_RT_VERSION, (unsigned)h);
}

const char *kiln_rt_driver_version(void)
{
    pthread_once(&version_once, make_version);
    return driver_version;
}
