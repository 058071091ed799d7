# SPDX-License-Identifier: BSD-3-Clause
"""bench/run --against REV: linerate's own sides measured against another
commit's tree in one run.

REV's tree is a detached git worktree in a cache folder outside the tree
(CACHE/SHORT, SHORT its abbreviated commit), built release in a folder of
the same name as this run's build (build-bench) with the same meson
options; both reused when there. The run then has two linerate builds,
this tree's and REV's (Build), each a column labelled "linerate (SHORT)";
an entry that supports the mode (Comparison.against is True) runs each of
its linerate runs once for each build, alternating in every round, and
runs no DPDK peer. The ratio of the section's table is this tree / REV.

Errors are raised as Error with a message naming what was wrong (a REV git
does not know, REV the same commit as HEAD, a folder in the way, a failed
build); nothing is removed that the run did not make.
"""
import os
import subprocess

# Where REV's worktrees are made (bench/run --against-cache changes it).
CACHE = '/var/cache/linerate/bench-against'
# How the commands show REV's tree (no absolute path in BENCHMARKS.md).
SHOWN = '$AGAINST'


class Error(Exception):
    """--against cannot run: the message says why."""


class Build:
    """One linerate build of the run: its column label, its build folder
    (relative to the tree, or absolute for REV's), its commit."""

    def __init__(self, label, build, commit):
        self.label = label
        self.build = build
        self.commit = commit


def label(short):
    """The column of a build at commit short."""
    return f'linerate ({short})'


def git(cwd, *args):
    """(status, stdout stripped, stderr stripped) of a git command."""
    try:
        p = subprocess.run(['git'] + list(args), cwd=cwd,
                           capture_output=True, text=True)
    except OSError as e:
        return 127, '', str(e)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def resolve(top, rev):
    """(full hash, short hash) of the commit rev names in top's repository;
    Error when git knows no such commit."""
    if not rev or rev.startswith('-'):
        raise Error(f'--against {rev!r}: a commit (a hash, a tag, a '
                    'branch) is wanted')
    rc, full, err = git(top, 'rev-parse', '--verify', '--quiet',
                        rev + '^{commit}')
    if rc != 0 or not full:
        raise Error(f'--against {rev}: no such commit in this repository'
                    + (f' ({err})' if err else ''))
    _, short, _ = git(top, 'rev-parse', '--short', full)
    return full, short or full[:7]


def check_distinct(head_full, full, rev):
    """Error when rev is the commit HEAD is at: nothing to compare."""
    if head_full == full:
        raise Error(f'--against {rev}: that is HEAD\'s own commit '
                    f'({full[:12]}); name an older tree')


def worktree(top, full, short, cache, log):
    """The folder of REV's worktree, CACHE/SHORT: made (git worktree add
    --detach) unless it is there at that commit; Error when the folder is
    there but holds something else."""
    path = os.path.join(cache, short)
    if os.path.exists(path):
        rc, at, _ = git(path, 'rev-parse', 'HEAD')
        top_rc, common, _ = git(path, 'rev-parse', '--show-toplevel')
        if rc != 0 or at != full or top_rc != 0 or \
                os.path.realpath(common) != os.path.realpath(path):
            raise Error(f'--against: {path} is there but is not a worktree '
                        f'at {short}; remove it (git worktree remove '
                        f'--force {path}) or name another --against-cache')
        log(f'--against: reusing {path} ({short})')
        return path
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError as e:
        raise Error(f'--against: cannot make the cache folder {cache}: '
                    f'{e.strerror}')
    log(f'--against: git worktree add --detach {path} {short}')
    # --force: a worktree once registered at that path whose folder was
    # removed by hand is registered again instead of refused.
    rc, _, err = git(top, 'worktree', 'add', '--force', '--detach', path,
                     full)
    if rc != 0:
        raise Error(f'--against: git worktree add {path} {short} failed: '
                    f'{err.splitlines()[-1] if err else rc}')
    return path


def prepare(top, build, rev, cache, build_fn, log):
    """[this tree's Build, REV's Build]: REV resolved, its worktree made or
    reused, build_fn(tree, folder) -> None or why run in it (the same
    meson build as this tree's, in a folder named as build); Error when
    one step fails."""
    head_full, head_short = resolve(top, 'HEAD')
    full, short = resolve(top, rev)
    check_distinct(head_full, full, rev)
    path = worktree(top, full, short, cache, log)
    bdir = os.path.basename(os.path.normpath(build))
    log(f'--against: building {short} in {path}/{bdir} (meson release; '
        'nothing to do when built before)')
    why = build_fn(path, bdir)
    if why:
        raise Error(f'--against: building {short} in {path}/{bdir} '
                    f'failed:\n{why}')
    return [Build(label(head_short), build, head_short),
            Build(label(short), os.path.join(path, bdir), short)]


def dirty(top):
    """True when the tree has changes to tracked files that HEAD lacks (the
    column's hash then does not name all that ran)."""
    rc, _, _ = git(top, 'diff', '--quiet', 'HEAD', '--')
    return rc == 1


def notes(builds, is_dirty):
    """The notes of an --against result: what each column is."""
    head, rev = builds[0], builds[1]
    out = [f'{head.label}: this tree at {head.commit}, its release build '
           f'in {head.build}/' +
           (' (with changes to tracked files not committed)'
            if is_dirty else ''),
           f'{rev.label}: the tree of {rev.commit}, a detached git '
           f'worktree bench/run --against makes ({SHOWN} in the commands), '
           'built the same way (meson release) in '
           f'{SHOWN}/{os.path.basename(rev.build)}/',
           'DPDK peers are not run with --against; ratio = this tree / '
           f'{rev.commit}']
    return out
