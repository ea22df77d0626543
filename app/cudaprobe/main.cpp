// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxi-cuda-probe: which CUDA devices this process sees, as the CUDA driver reports them. Run
// with the CUDA_VISIBLE_DEVICES a scheduled job would get, it shows whether that binding selects
// exactly the unit it names (scripts/nvml-check does so, read-only).
//
// The CUDA driver library (libcuda.so.1, or $ZHAOXI_CUDA_LIBRARY) is opened at run time, so the
// probe builds without the CUDA toolkit; only the few driver API functions it calls are declared
// here. Plain C++ and POSIX: no Qt.
//
// Output (stdout, one line): {"count":N,"devices":[{"ordinal":0,"uuid":"GPU-...","name":"..."}]}
// The uuid is the 16 bytes the driver gives (cuDeviceGetUuid_v2, else cuDeviceGetUuid) written
// as a UUID with the "GPU-" prefix. For a MIG device those bytes are the MIG instance's, which
// NVML and nvidia-smi write as "MIG-<uuid>": compare case-insensitively, ignoring the prefix.
//
// Exit status: 0 the devices were listed; 1 usage; 2 no CUDA driver library (or one lacking a
// function the probe needs), with a message on stderr; 3 a CUDA call failed: stderr names the
// call and its CUresult code (100, CUDA_ERROR_NO_DEVICE, when CUDA_VISIBLE_DEVICES selects
// nothing).

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// The driver API's types, as cuda.h declares them (CUdevice is an int ordinal handle, CUresult
// an enum passed as int, CUuuid 16 bytes).
using CUresult = int;
using CUdevice = int;
struct CUuuid
{
    char bytes[16];
};
static_assert(sizeof(CUuuid) == 16);

constexpr CUresult kCudaSuccess = 0;
constexpr int kNameLength = 256;

using CuInit = CUresult (*)(unsigned int);
using CuDeviceGetCount = CUresult (*)(int *);
using CuDeviceGet = CUresult (*)(CUdevice *, int);
using CuDeviceGetUuid = CUresult (*)(CUuuid *, CUdevice);
using CuDeviceGetName = CUresult (*)(char *, int, CUdevice);
using CuGetErrorName = CUresult (*)(CUresult, const char **);

struct Driver
{
    void *handle = nullptr;
    CuInit init = nullptr;
    CuDeviceGetCount deviceGetCount = nullptr;
    CuDeviceGet deviceGet = nullptr;
    CuDeviceGetUuid deviceGetUuid = nullptr;
    CuDeviceGetName deviceGetName = nullptr;
    CuGetErrorName getErrorName = nullptr; // optional: only for the message
};

template<typename Fn>
Fn symbol(void *handle, const char *name)
{
    // POSIX guarantees that dlsym's void* converts back to the function pointer it names.
    return reinterpret_cast<Fn>(::dlsym(handle, name));
}

std::string formatUuid(const CUuuid &u)
{
    static const char hex[] = "0123456789abcdef";
    std::string s = "GPU-";
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s += '-';
        const auto b = static_cast<unsigned char>(u.bytes[i]);
        s += hex[b >> 4];
        s += hex[b & 0xF];
    }
    return s;
}

std::string jsonString(const char *text)
{
    std::string s = "\"";
    for (const char *p = text; *p; ++p) {
        const auto c = static_cast<unsigned char>(*p);
        if (c == '"' || c == '\\') {
            s += '\\';
            s += char(c);
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            s += esc;
        } else {
            s += char(c); // UTF-8 bytes pass through unchanged
        }
    }
    return s + "\"";
}

int cudaFailed(const Driver &d, const char *call, CUresult rc)
{
    const char *name = nullptr;
    if (d.getErrorName && d.getErrorName(rc, &name) != kCudaSuccess)
        name = nullptr;
    std::fprintf(stderr,
                 "zhaoxi-cuda-probe: %s failed: CUDA error %d (%s)\n",
                 call,
                 rc,
                 name ? name : "no name known");
    return 3;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1) {
        const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
        std::fprintf(help ? stdout : stderr,
                     "usage: zhaoxi-cuda-probe\n"
                     "Lists the CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies) as "
                     "JSON.\nThe driver library: $ZHAOXI_CUDA_LIBRARY, else libcuda.so.1.\n");
        return help ? 0 : 1;
    }
    const char *fromEnv = std::getenv("ZHAOXI_CUDA_LIBRARY");
    const char *path = fromEnv && *fromEnv ? fromEnv : "libcuda.so.1";

    Driver d;
    d.handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!d.handle) {
        const char *why = ::dlerror();
        std::fprintf(stderr,
                     "zhaoxi-cuda-probe: no CUDA driver found (%s cannot be opened: %s)\n",
                     path,
                     why ? why : "?");
        return 2;
    }
    d.init = symbol<CuInit>(d.handle, "cuInit");
    d.deviceGetCount = symbol<CuDeviceGetCount>(d.handle, "cuDeviceGetCount");
    d.deviceGet = symbol<CuDeviceGet>(d.handle, "cuDeviceGet");
    // _v2 (CUDA 11.4+) gives a MIG device's own UUID; the first version is all older drivers have.
    d.deviceGetUuid = symbol<CuDeviceGetUuid>(d.handle, "cuDeviceGetUuid_v2");
    if (!d.deviceGetUuid)
        d.deviceGetUuid = symbol<CuDeviceGetUuid>(d.handle, "cuDeviceGetUuid");
    d.deviceGetName = symbol<CuDeviceGetName>(d.handle, "cuDeviceGetName");
    d.getErrorName = symbol<CuGetErrorName>(d.handle, "cuGetErrorName");
    std::string missing;
    const struct
    {
        const char *name;
        bool present;
    } required[] = {{"cuInit", d.init != nullptr},
                    {"cuDeviceGetCount", d.deviceGetCount != nullptr},
                    {"cuDeviceGet", d.deviceGet != nullptr},
                    {"cuDeviceGetUuid", d.deviceGetUuid != nullptr},
                    {"cuDeviceGetName", d.deviceGetName != nullptr}};
    for (const auto &r : required) {
        if (!r.present)
            missing += (missing.empty() ? "" : ", ") + std::string(r.name);
    }
    if (!missing.empty()) {
        std::fprintf(stderr,
                     "zhaoxi-cuda-probe: %s is not a usable CUDA driver library (missing %s)\n",
                     path,
                     missing.c_str());
        return 2;
    }

    CUresult rc = d.init(0);
    if (rc != kCudaSuccess)
        return cudaFailed(d, "cuInit", rc);
    int count = 0;
    rc = d.deviceGetCount(&count);
    if (rc != kCudaSuccess)
        return cudaFailed(d, "cuDeviceGetCount", rc);

    // Built whole before printing, so a failure half way prints no partial JSON.
    std::string out = "{\"count\":" + std::to_string(count) + ",\"devices\":[";
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        CUdevice dev = 0;
        rc = d.deviceGet(&dev, ordinal);
        if (rc != kCudaSuccess)
            return cudaFailed(d, "cuDeviceGet", rc);
        CUuuid uuid = {};
        rc = d.deviceGetUuid(&uuid, dev);
        if (rc != kCudaSuccess)
            return cudaFailed(d, "cuDeviceGetUuid", rc);
        char name[kNameLength] = {};
        rc = d.deviceGetName(name, kNameLength - 1, dev);
        if (rc != kCudaSuccess)
            return cudaFailed(d, "cuDeviceGetName", rc);
        out += ordinal ? "," : "";
        out += "{\"ordinal\":" + std::to_string(ordinal) + ",\"uuid\":\"" + formatUuid(uuid)
               + "\",\"name\":" + jsonString(name) + "}";
    }
    out += "]}\n";
    std::fputs(out.c_str(), stdout);
    return 0;
}
