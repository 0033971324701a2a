package exchange

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// writeAtomic writes b to path through a temporary file in the same
// directory and a rename, so readers see the old file or the new one, and a
// symbolic link at path is replaced, never followed.
func writeAtomic(path string, b []byte, perm os.FileMode) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+randHex(6)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm) // whatever the umask
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeNew writes b to a new file at path and fails if anything is there.
func writeNew(path string, b []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// errTooBig is readRegular's error for a file over its limit.
var errTooBig = errors.New("too big")

// readRegular reads path, which must be a regular file (a symbolic link is
// refused), at most limit bytes. It opens without blocking, so that a FIFO
// or a device planted by a student is refused rather than waited on.
func readRegular(path string, limit int64) ([]byte, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > limit {
		return nil, nil, fmt.Errorf("%s is %d bytes, more than the %d allowed: %w", path, st.Size(), limit, errTooBig)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > limit {
		return nil, nil, fmt.Errorf("%s grew beyond %d bytes while read: %w", path, limit, errTooBig)
	}
	return b, st, nil
}

func readJSON(path string, v any) error {
	b, _, err := readRegular(path, 1<<20)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		panic(err) // only our own types
	}
	return append(b, '\n')
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// visibleFiles lists the regular files of dir (symbolic links to them
// included when follow), not hidden, sorted, that match ext ("" for all).
func visibleFiles(dir, ext string, follow bool) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || (ext != "" && !strings.HasSuffix(n, ext)) {
			continue
		}
		mode := e.Type()
		if mode&os.ModeSymlink != 0 && follow {
			st, err := os.Stat(filepath.Join(dir, n))
			if err != nil {
				continue
			}
			mode = st.Mode().Type()
		}
		if mode.IsRegular() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// trustedPath checks that nobody but the caller and root can change where
// path leads: every directory on the way belongs to one of them and is not
// writable by others (unless sticky: there others cannot move what is not
// theirs), and every symbolic link followed belongs to one of them. A
// directory such as /tmp/shared, or a link planted in /tmp, is refused:
// there a student could lead collect or return elsewhere. What does not
// exist yet passes (the caller makes it, in a trusted directory).
func trustedPath(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	cur, rest := "/", strings.Split(abs, "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !ownTrusted(st) || (st.IsDir() && st.Mode()&os.ModeSticky == 0 && st.Mode().Perm()&0o022 != 0) {
			return fmt.Errorf("%s (on the way to %s) belongs to %s and has mode %s: agx does not follow a path that others can change (they could plant links that lead it elsewhere); use a directory of yours that others cannot write",
				next, path, userName(statT(st).Uid), modeString(st.Mode()&modeBits))
		}
		if st.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return fmt.Errorf("%s: too many symbolic links", path)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return nil
}

// ownTrusted reports whether st belongs to the caller or root.
func ownTrusted(st fs.FileInfo) bool {
	uid := statT(st).Uid
	return uid == 0 || int(uid) == os.Geteuid()
}
