#!/usr/bin/python3
"""Brings a student's lab workspace up to date from a seed directory, never
overwriting a notebook the student edited.

Usage: seed-workspace.py SEED WORKSPACE
       seed-workspace.py --trust DIR

SEED holds the notebooks a student should have (lab.sh makes it from the course
notebooks and `agx assign`; the lab image ships one). Every *.ipynb under SEED
(hidden files and folders, checkpoints and *.executed.ipynb skipped) is matched
with the same path under WORKSPACE:

  - missing there (new upstream, or deleted by the student): copied;
  - identical: nothing to do;
  - unchanged since this script last copied it, and different upstream: replaced
    by the new version;
  - anything else (the student edited it, or it was there before this script
    first ran and differs): kept as it is. When the upstream version changed,
    a note says how to get it.

Every notebook of WORKSPACE that is as SEED has it is then marked trusted
(signed, as `jupyter trust` does), so that the outputs stored in the course
notebooks (HTML tensors, SVG pictures) are shown when it opens; Jupyter shows
the HTML and SVG outputs of an untrusted notebook only once its cells run
again. The signature goes into the user's Jupyter data directory
(nbsignatures.db, keyed with the user's own secret there), never into the
notebook, so the files stay byte for byte as SEED has them. A notebook the
student edited is not signed here (Jupyter signs what the student saves).
With --trust, every notebook under DIR is signed (the author's view).

WORKSPACE/.agx-lab.json records the SHA-256 of what was last copied to each path;
that is how an edit is told from an upstream update. Jupyter does not show files
whose names start with a dot. Files of the workspace that SEED does not have are
never touched.
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile

MANIFEST = ".agx-lab.json"


def say(msg):
    print(f"[agx] {msg}", file=sys.stderr)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def seed_notebooks(seed):
    """Relative paths of the notebooks under seed, sorted."""
    out = []
    for root, dirs, files in os.walk(seed):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in files:
            if name.startswith(".") or not name.endswith(".ipynb") or name.endswith(".executed.ipynb"):
                continue
            out.append(os.path.relpath(os.path.join(root, name), seed))
    return sorted(out)


def copy_atomically(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".agx-seed-", dir=os.path.dirname(dst))
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, dst)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def load_manifest(path):
    try:
        with open(path) as f:
            data = json.load(f)
        files = data.get("files", {})
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, AttributeError) as e:
        say(f"note: ignoring an unreadable {path} ({e}); existing notebooks are kept as they are")
        return {}


def trust(root, rels):
    """Signs the notebooks root/rel with the user's Jupyter notary. A failure
    is reported and leaves the notebook untrusted; it never stops the lab."""
    if not rels:
        return 0
    try:
        import nbformat
        from nbformat.sign import NotebookNotary
        notary = NotebookNotary()
    except Exception as e:  # ImportError, or an unusable data directory
        say(f"note: cannot mark the notebooks trusted ({e}); their stored pictures show once their cells run")
        return 0
    signed = 0
    for rel in rels:
        try:
            nb = nbformat.read(os.path.join(root, rel), as_version=4)
            if not notary.check_signature(nb):
                notary.sign(nb)
                signed += 1
        except Exception as e:
            say(f"note: cannot mark {rel} trusted ({e})")
    return signed


def main(argv):
    if len(argv) == 3 and argv[1] == "--trust":
        rels = seed_notebooks(argv[2])
        n = trust(argv[2], rels)
        say(f"{argv[2]}: {len(rels)} notebooks trusted ({n} newly signed)")
        return 0
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    seed, ws = argv[1], argv[2]
    if not os.path.isdir(seed):
        say(f"error: seed directory {seed} does not exist")
        return 1
    os.makedirs(ws, exist_ok=True)
    manifest_path = os.path.join(ws, MANIFEST)
    copied = load_manifest(manifest_path)
    new, updated, kept = [], [], []
    for rel in seed_notebooks(seed):
        src, dst = os.path.join(seed, rel), os.path.join(ws, rel)
        want = sha256(src)
        if not os.path.lexists(dst):
            copy_atomically(src, dst)
            copied[rel] = want
            new.append(rel)
            continue
        if not os.path.isfile(dst):
            kept.append(rel)
            continue
        have = sha256(dst)
        if have == want:
            copied[rel] = want
        elif copied.get(rel) == have:
            copy_atomically(src, dst)
            copied[rel] = want
            updated.append(rel)
        else:
            if copied.get(rel) != want:
                say(f"kept your {rel}; a newer version exists (rename or delete yours to get it at the next start)")
            kept.append(rel)
    fd, tmp = tempfile.mkstemp(prefix=".agx-lab-", dir=ws)
    with os.fdopen(fd, "w") as f:
        json.dump({"version": 1, "files": dict(sorted(copied.items()))}, f, indent=1)
        f.write("\n")
    os.replace(tmp, manifest_path)
    kept_set = set(kept)
    trust(ws, [rel for rel in seed_notebooks(seed) if rel not in kept_set])
    say(f"workspace {ws}: {len(new)} new, {len(updated)} updated, {len(kept)} of yours kept as edited")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
