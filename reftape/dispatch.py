"""Whether TensorFlow would run its oneDNN kernels in this process, decided as TF decides it.

TF's rule (`IsMklEnabled` in tensorflow/core/util/port.cc, TF 2.21): Linux x86 builds turn oneDNN on
by default when the CPU has one of the neural-network features listed in `_DEFAULT_ON_FEATURES`,
Linux aarch64 builds on an Arm Neoverse V1, Windows x86 builds always, and builds without oneDNN
compiled in (macOS, other CPUs) never. `TF_ENABLE_ONEDNN_OPTS` overrides the default where oneDNN is
compiled in, read as TF reads a bool variable: "0"/"false" or "1"/"true", case-insensitive; any other
value (the empty string too) keeps the default. TF reads it once per process, and so does reftape.

With oneDNN on, a kernel still runs only for the dtypes the CPU supports
(`IsDataTypeSupportedByOneDNNOnThisCPU` in tensorflow/core/util/util.cc): float32 always,
bfloat16 and float16 only with the vector extensions in `_DTYPE_FEATURES`.

The CPU's features come from Linux's /proc/cpuinfo; reftape never imports TensorFlow.
"""

from __future__ import annotations

import functools
import os
import platform
import sys

ENV_VAR = "TF_ENABLE_ONEDNN_OPTS"

_DEFAULT_ON_FEATURES = frozenset({"avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"})
_ARM_NEOVERSE_V1 = ("0x41", "0xd40")   # (CPU implementer, CPU part) in /proc/cpuinfo
_X86_MACHINES = frozenset({"x86_64", "amd64", "i386", "i686"})
_ARM64_MACHINES = frozenset({"aarch64", "arm64"})

# dtype name -> the feature sets any one of which (all of its features present) lets oneDNN run it
_DTYPE_FEATURES: dict[str, tuple[frozenset[str], ...]] = {
    "float32": (frozenset(),),
    "bfloat16": (frozenset({"avx512f"}), frozenset({"avx_ne_convert"})),
    "float16": (frozenset({"avx512bw", "avx512_fp16"}), frozenset({"avx512bw", "amx_fp16"}),
                frozenset({"avx512bw", "avx_ne_convert"})),
}


def parse_bool_env(value: str | None, default: bool) -> bool:
    """TF's ReadBoolFromEnvVar: '0'/'false' and '1'/'true' in any case; unset or anything else keeps `default`."""
    if value is None:
        return default
    lowered = value.lower()
    if lowered in ("0", "false"):
        return False
    if lowered in ("1", "true"):
        return True
    return default


def _cpuinfo_fields(text: str) -> dict[str, str]:
    """The first processor's `key : value` lines of /proc/cpuinfo."""
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


@functools.cache
def _cpuinfo() -> dict[str, str]:
    try:
        with open("/proc/cpuinfo") as file:
            return _cpuinfo_fields(file.read())
    except OSError:
        return {}


def cpu_features() -> frozenset[str]:
    """This CPU's feature flags as Linux names them (empty where /proc/cpuinfo is unreadable)."""
    fields = _cpuinfo()
    return frozenset((fields.get("flags") or fields.get("Features") or "").split())


def built_with_onednn(system: str, machine: str) -> bool:
    """Whether TF's builds for this platform have oneDNN compiled in: Linux on x86 and aarch64, Windows on
    x86 (elsewhere, macOS among them, IsMklEnabled is false whatever the variable says)."""
    machine = machine.lower()
    if system == "linux":
        return machine in _X86_MACHINES or machine in _ARM64_MACHINES
    return system == "win32" and machine in _X86_MACHINES


def default_policy(system: str, machine: str, features: frozenset[str], cpu_id: tuple[str, str]) -> bool:
    """TF's default before the environment variable, where oneDNN is compiled in: Linux turns it on for the
    CPUs its rule names, Windows always."""
    if system == "linux":
        if machine.lower() in _X86_MACHINES:
            return bool(features & _DEFAULT_ON_FEATURES)
        return cpu_id == _ARM_NEOVERSE_V1
    return True


def decide(system: str, machine: str, features: frozenset[str], cpu_id: tuple[str, str], env_value: str | None) -> bool:
    """TF's IsMklEnabled for the given platform, CPU and value of TF_ENABLE_ONEDNN_OPTS."""
    if not built_with_onednn(system, machine):
        return False
    return parse_bool_env(env_value, default_policy(system, machine, features, cpu_id))


@functools.cache
def onednn_enabled() -> bool:
    """Whether TF's oneDNN kernels are on in this process (decided at the first call, as TF does)."""
    fields = _cpuinfo()
    cpu_id = (fields.get("CPU implementer", ""), fields.get("CPU part", ""))
    return decide(sys.platform, platform.machine(), cpu_features(), cpu_id, os.environ.get(ENV_VAR))


def supports_dtype(dtype_name: str, features: frozenset[str]) -> bool:
    """Whether oneDNN runs `dtype_name` on a CPU with `features` (TF's IsDataTypeSupportedByOneDNNOnThisCPU)."""
    return any(required <= features for required in _DTYPE_FEATURES.get(dtype_name, ()))


def runs_onednn(dtype_name: str) -> bool:
    """Whether a kernel TF sends to oneDNN for `dtype_name` runs there in this process."""
    return onednn_enabled() and supports_dtype(dtype_name, cpu_features())
