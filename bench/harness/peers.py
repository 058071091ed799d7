# SPDX-License-Identifier: BSD-3-Clause
"""DPDK 22.11 peers: the same loops (bench/dpdk/*.c) built against every
DPDK there is, with linerate's own compiler flags.

- "DPDK <version> Debian": Debian's libdpdk-dev (pkg-config libdpdk), its
  shared libraries built -O2 for a baseline CPU;
- "DPDK <version> native": the static build of scripts/dpdk-native.sh
  (-O3 -march=native), when it is there.
A peer that is not there gives a note instead. A binary is rebuilt when
its source is newer.
"""
import os
import shutil
import subprocess

# The flags of linerate's release build, for the peers' own source.
CFLAGS = ['-O3', '-march=native', '-std=gnu11', '-Wall']


def pkg_config(args, pcdir=None):
    """pkg-config's output as a list of words, or None when it fails."""
    env = dict(os.environ)
    if pcdir:
        env['PKG_CONFIG_PATH'] = pcdir
    try:
        p = subprocess.run(['pkg-config'] + args, env=env,
                           capture_output=True, text=True)
    except OSError:
        return None
    return p.stdout.split() if p.returncode == 0 else None


def native_build(ctx):
    """{'pkgconfig': dir, 'cflags': text} of scripts/dpdk-native.sh's build,
    or None when it was not built."""
    try:
        p = subprocess.run(['scripts/dpdk-native.sh', '--print'],
                           cwd=ctx.top, capture_output=True, text=True)
    except OSError:
        return None
    if p.returncode != 0:
        return None
    info = {}
    for line in p.stdout.splitlines():
        k, _, v = line.partition(': ')
        info[k] = v
    return info if 'pkgconfig' in info else None


def compile_peer(ctx, src, out, pcdir=None, static=False, driver_libs=(),
                 cflags=None):
    """Build out from src (with cflags, CFLAGS by default); None on
    success, else why it failed."""
    srcp = os.path.join(ctx.top, src)
    outp = os.path.join(ctx.top, out)
    if (os.path.exists(outp) and
            os.path.getmtime(outp) >= os.path.getmtime(srcp)):
        return None
    os.makedirs(os.path.dirname(outp), exist_ok=True)
    cf = pkg_config(['--cflags', 'libdpdk'], pcdir)
    lf = pkg_config((['--static'] if static else []) + ['--libs', 'libdpdk'],
                    pcdir)
    if cf is None or lf is None:
        return 'pkg-config libdpdk failed'
    if static:
        # DPDK's libraries static, libpcap (its bpf library needs it)
        # shared: libpcap's own private dependencies are not needed.
        shared = set(pkg_config(['--libs', 'libpcap']) or [])
        private = set(pkg_config(['--static', '--libs', 'libpcap']) or [])
        lf = [f for f in lf if f not in private - shared]
    else:
        lf += list(driver_libs)
    cmd = ['cc'] + list(cflags or CFLAGS) + cf + [srcp, '-o', outp] + lf
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        with open(outp + '.log', 'w') as f:
            f.write(p.stdout + p.stderr)
        return f'building {out} failed (see {out}.log)'
    return None


def debian(ctx, src, out, driver_libs=(), cflags=None):
    """(label, binary, note) of src built as out against Debian's libdpdk
    (with cflags, CFLAGS by default); binary None and a note saying why
    when it cannot be."""
    if pkg_config(['--exists', 'libdpdk']) is None:
        return ('DPDK Debian', None,
                'DPDK Debian: no peer (needs libdpdk-dev)')
    flags = list(cflags or CFLAGS)
    why = compile_peer(ctx, src, out, driver_libs=driver_libs,
                       cflags=flags)
    ver = ' '.join(pkg_config(['--modversion', 'libdpdk']) or ['?'])
    if why is not None:
        return (f'DPDK {ver} Debian', None, why)
    return (f'DPDK {ver} Debian', out,
            f'DPDK {ver} Debian: shared libraries of libdpdk-dev; {src} '
            f'built cc {" ".join(flags)}')


def build(ctx, src, out, driver_libs=()):
    """[(label, binary, note)] for each DPDK there is; a missing one has
    binary None and a note saying why."""
    res = [debian(ctx, src, out + '-debian', driver_libs)]
    nat = native_build(ctx)
    if nat:
        why = compile_peer(ctx, src, out + '-native', nat['pkgconfig'],
                           static=True)
        ver = ' '.join(pkg_config(['--modversion', 'libdpdk'],
                                  nat['pkgconfig']) or ['?'])
        if why is None:
            res.append((f'DPDK {ver} native', out + '-native',
                        f'DPDK {ver} native: static libraries built '
                        f'{nat.get("cflags", "?")} by scripts/dpdk-native.sh'))
        else:
            res.append((f'DPDK {ver} native', None, why))
    else:
        res.append(('DPDK native', None,
                    'DPDK native: no peer (run scripts/dpdk-native.sh once, '
                    'about 17 minutes)'))
    return res


def l2fwd_example(ctx):
    """(binary, None) of DPDK's l2fwd example as Debian ships it, built once
    into <build>/dpdk-l2fwd with the example's own Makefile (-O3 and
    libdpdk.pc's flags) from dpdk-doc's copy of its source, else from the
    source package scripts/dpdk-native.sh fetched; (None, why) when there
    is none."""
    cache = os.environ.get('LR_DPDK_NATIVE_DIR',
                           '/var/cache/linerate/dpdk-native')
    dirs = ['/usr/share/dpdk/examples/l2fwd']
    src = os.path.join(cache, 'src')
    if os.path.isdir(src):
        dirs += [os.path.join(src, d, 'examples/l2fwd')
                 for d in sorted(os.listdir(src)) if d.startswith('dpdk-22.11')]
    exdir = next((d for d in dirs
                  if os.path.isfile(os.path.join(d, 'main.c'))), None)
    if pkg_config(['--exists', 'libdpdk']) is None or exdir is None:
        return None, ('no peer (needs libdpdk-dev and the l2fwd example '
                      'source: dpdk-doc or scripts/dpdk-native.sh\'s source)')
    ddir = os.path.join(ctx.top, ctx.build, 'dpdk-l2fwd')
    exe = os.path.join(ddir, 'build', 'l2fwd')
    if not os.access(exe, os.X_OK):
        shutil.rmtree(ddir, ignore_errors=True)
        shutil.copytree(exdir, ddir)
        with open(os.path.join(ctx.top, ctx.build, 'dpdk-l2fwd.log'),
                  'w') as log:
            subprocess.run(['make', '-s', '-C', ddir], stdout=log,
                           stderr=subprocess.STDOUT)
    if not os.access(exe, os.X_OK):
        return None, f'build failed, see {ctx.build}/dpdk-l2fwd.log'
    return os.path.relpath(exe, ctx.top), None


def native_program(ctx, key):
    """(path, cflags) of a program of scripts/dpdk-native.sh's build
    ('l2fwd', 'testpmd', ... as its --print names them), or (None, None)."""
    nat = native_build(ctx)
    if not nat or not nat.get(key):
        return None, None
    return nat[key], nat.get('cflags', '?')
