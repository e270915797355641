package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/kobako/kobako/internal/boundedfile"
	"github.com/kobako/kobako/internal/wasm"
)

// CacheFormatVersion is the version of the prepared-artifact cache's file format (Config.CacheDir),
// written in every file's header and part of every key.
//
// Before wazero compiles a module, Compile decodes it, checks it against the decode limits and
// the engine's features, and rewrites it for fuel metering (package internal/wasm). With a cache
// directory, the result (the rewritten binary and what instantiation needs from the decoded
// module) is written to a file, and a later Compile of the same bytes with the same options, by
// this engine or another, in this process or another, reads it back instead. wazero's own work
// (decoding and validating the rewritten binary, lowering it to the interpreter's code) is not
// cached: wazero's interpreter ignores a compilation cache (interpreter.NewEngine takes no
// filecache.Cache), and that work is most of a cold compile; see bench/README.md.
//
// Layout: DIR/prepared/HEX.v1, one file per entry, HEX the entry's key in hexadecimal. The key
// is a SHA-256 over: the format version (CacheFormatVersion), kobako's build (buildID: the kobako
// module's version and, for a build of kobako itself, its VCS revision; for a development build,
// one from a modified tree or one whose version is unknown, the path, size and modification time
// of the running executable as well), the SHA-256 of the module's bytes, the table element limit
// it is rewritten for, every field of the rewrite's options (which include whether functions are
// profiled) and the decode limits. Whatever changes the result changes the key, so an entry is
// never invalidated in place: a new key is a new file, and old files stay until removed (removing
// any file, or the directory, at any time is safe).
//
// A file is a fixed header followed by its payload:
//
//	offset  size  field
//	0       8     magic "kobako\x00P"
//	8       4     format version, little-endian uint32 (CacheFormatVersion)
//	12      4     zero
//	16      32    key (the file's name, in binary)
//	48      8     payload length, little-endian uint64
//	56      32    SHA-256 of the payload
//	88      ...   payload
//
// The payload is the metadata, then the rewritten binary to its end. The metadata is a sequence
// of unsigned LEB128 numbers (u), bytes (b) and strings (s: u length, then UTF-8 bytes): u table
// limit; b flags (1: the module has a start function); the defined memories (u count, then each
// u min, u max, b flags: 1 has max, 2 shared, 4 64-bit), the defined tables as rewritten and as
// declared (u count each, then each b element type, u min, u max, b flags: 1 has max, 4 64-bit),
// the entry charges (u count, then each s export name, u charge as a zigzag signed number, by
// name), the imports (u count, then each s module, s name, b kind) and the exports (u count,
// then each s name, b kind).
//
// A file is trusted only if everything checks: the magic, the version, the key (a file copied
// under another name is foreign), the length against the file's size and against a bound
// derived from the module's size (8 times it plus 1 MiB: a reader allocates no more), the checksum,
// and the metadata, which must decode to the end and encode back to the same bytes (one
// encoding per value). Anything else is rejected, counted in CacheStats.Rejected, and the module
// prepared anew, which replaces the file. Modules restored from a snapshot with a memory image
// are not cached (their binary holds the state of one initialization, which may differ from run
// to run). The checksum catches corruption, not an adversary: a process that can write to the
// directory can write a valid entry, so the directory must be as private as the executable
// (Compile makes it with mode 0700, the files 0600).
//
// Writers write a temporary file in the same directory, sync it and rename it over the entry,
// so a reader sees a whole file or none, without locks; two processes preparing the same module
// at once both write it, and the last rename wins with identical contents.
const CacheFormatVersion = 1

const (
	cacheFormat     = CacheFormatVersion
	cacheMagic      = "kobako\x00P"
	cacheHeaderSize = 88
	cacheSubdir     = "prepared"
	cacheExt        = ".v1"
	kobakoModule    = "github.com/kobako/kobako"
)

// CacheStats counts what an engine's prepared-artifact cache did (see Config.CacheDir).
type CacheStats struct {
	// Prepared counts the modules the engine decoded, checked and metered itself.
	Prepared int64
	// Hits counts the modules read from the cache instead.
	Hits int64
	// Misses counts the lookups that found no file.
	Misses int64
	// Rejected counts the files found and not trusted: truncated, corrupted, foreign, of another
	// format, or over the size bound. Each was prepared anew and rewritten.
	Rejected int64
	// Stored counts the files written.
	Stored int64
	// WriteErrors counts the files that could not be written (the cache is then only skipped).
	WriteErrors int64
}

// CacheStats reports what the engine's prepared-artifact cache has done so far. Without a
// Config.CacheDir only Prepared counts.
func (e *Engine) CacheStats() CacheStats {
	s := CacheStats{Prepared: e.prepares.Load()}
	if c := e.cache; c != nil {
		s.Hits, s.Misses, s.Rejected = c.hits.Load(), c.misses.Load(), c.rejected.Load()
		s.Stored, s.WriteErrors = c.stored.Load(), c.writeErrs.Load()
	}
	return s
}

// prepared is what kobako computes from a module before wazero compiles it: the rewritten
// binary and what a Module keeps from the decoded module.
type prepared struct {
	out            []byte
	tableMax       uint32
	hasStart       bool
	memories       []wasm.MemoryType
	tables         []wasm.TableType
	declaredTables []wasm.TableType
	entryCharges   map[string]int64
	imports        []preparedExtern
	exports        []preparedExtern
	fromCache      bool // read from the cache, not prepared by this engine
}

type preparedExtern struct {
	Module, Name string
	Kind         ExternKind
}

func newPrepared(d *wasm.Module, out []byte, tableMax uint32) *prepared {
	p := &prepared{out: out, tableMax: tableMax, hasStart: d.StartFunc != nil,
		memories: d.Memories, tables: d.Tables, declaredTables: d.DeclaredTables,
		entryCharges: d.EntryCharges}
	for _, im := range d.Imports {
		p.imports = append(p.imports, preparedExtern{Module: im.Module, Name: im.Name, Kind: ExternKind(im.Kind)})
	}
	for _, ex := range d.Exports {
		p.exports = append(p.exports, preparedExtern{Name: ex.Name, Kind: ExternKind(ex.Kind)})
	}
	return p
}

// prepareBytes prepares src for stores whose table element limit is tableMax (0: the first
// variant's, see firstTableLimit), through the cache when the engine has one and useCache is
// set. sum is src's SHA-256, or nil to compute it.
func (e *Engine) prepareBytes(src []byte, sum *[32]byte, tableMax uint32, useCache bool) (*prepared, [32]byte, error) {
	var key [32]byte
	cache := e.cache
	if !useCache || len(src) < e.cfg.CacheMinModuleSize {
		cache = nil
	}
	if cache != nil {
		if sum == nil {
			s := sha256.Sum256(src)
			sum = &s
		}
		key = e.cacheKey(*sum, tableMax)
		if p := cache.load(key, maxPayload(len(src))); p != nil {
			return p, key, nil
		}
	}
	d, err := wasm.Decode(src, e.decode)
	if err != nil {
		return nil, key, fmt.Errorf("engine: compile: %w: %w", ErrInvalidModule, err)
	}
	limit := tableMax
	if limit == 0 {
		limit = firstTableLimit(d)
	}
	p, err := e.prepare(d, limit)
	if err != nil {
		return nil, key, err
	}
	if cache != nil {
		cache.store(key, p, maxPayload(len(src)))
	}
	return p, key, nil
}

// compileSource prepares (or reads from the cache) and compiles src. A prepared module read
// from the cache that wazero refuses, or that disagrees with what wazero compiled, is rejected
// and src prepared anew: a cache file never makes a compile fail.
func (e *Engine) compileSource(ctx context.Context, src []byte, sum *[32]byte, tableMax uint32, useCache bool) (*Module, *prepared, error) {
	p, key, err := e.prepareBytes(src, sum, tableMax, useCache)
	if err != nil {
		return nil, nil, err
	}
	m, err := e.compilePrepared(ctx, p)
	if err != nil && p.fromCache {
		e.cache.rejected.Add(1)
		e.cache.remove(key)
		if p, _, err = e.prepareBytes(src, sum, tableMax, useCache); err != nil {
			return nil, nil, err
		}
		m, err = e.compilePrepared(ctx, p)
	}
	if err != nil {
		return nil, nil, err
	}
	return m, p, nil
}

// maxPayload bounds the payload of the entry of a module of n bytes: what a reader may allocate
// for it. The rewrite adds a few instructions per basic block; a module it grows beyond this is
// not cached.
func maxPayload(n int) int64 { return 8*int64(n) + 1<<20 }

// cacheKey is the key of the entry of the module whose bytes hash to sum (see the format's doc).
func (e *Engine) cacheKey(sum [32]byte, tableMax uint32) [32]byte {
	h := sha256.New()
	h.Write([]byte("kobako prepared artifact\x00"))
	h.Write(binary.LittleEndian.AppendUint32(nil, cacheFormat))
	id := buildID()
	h.Write(binary.AppendUvarint(nil, uint64(len(id))))
	h.Write([]byte(id))
	h.Write(sum[:])
	h.Write(binary.LittleEndian.AppendUint32(nil, tableMax))
	// %+v names every field, so a field added to either struct is in the key without a change here.
	fmt.Fprintf(h, "%+v\x00%+v", e.instrumentOptions(tableMax), e.decode)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// buildID identifies the kobako code that prepares modules, computed once per process.
var buildID = sync.OnceValue(func() string {
	id := runtime.Version()
	bi, ok := debug.ReadBuildInfo()
	stamp := !ok
	if ok {
		version, revision, modified := "", "", false
		if bi.Main.Path == kobakoModule {
			version = bi.Main.Version
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					revision = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
		} else {
			for _, d := range bi.Deps {
				if d.Path == kobakoModule {
					version = d.Version + " " + d.Sum
					modified = d.Replace != nil // a local replacement has no fixed content
				}
			}
		}
		stamp = modified || revision == "" && (version == "" || version == "(devel)")
		id += " " + version + " " + revision
	}
	if stamp {
		// A development build's version says nothing of its code: the executable stands for it.
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				id += " " + exe + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
			}
		}
	}
	return id
})

// diskCache is an engine's view of a cache directory.
type diskCache struct {
	dir    string      // DIR/prepared
	decode wasm.Limits // the engine's decode limits, which a cached module must meet too

	mkdirOnce sync.Once
	mkdirErr  error

	hits, misses, rejected, stored, writeErrs atomic.Int64
}

func newDiskCache(dir string, decode wasm.Limits) *diskCache {
	return &diskCache{dir: filepath.Join(dir, cacheSubdir), decode: decode}
}

func (c *diskCache) path(key [32]byte) string {
	return filepath.Join(c.dir, hex.EncodeToString(key[:])+cacheExt)
}

func (c *diskCache) remove(key [32]byte) { _ = os.Remove(c.path(key)) }

// load reads the entry of key, or returns nil when there is none or it is not trusted.
func (c *diskCache) load(key [32]byte, limit int64) *prepared {
	b, err := readCacheFile(c.path(key), limit)
	if errors.Is(err, fs.ErrNotExist) {
		c.misses.Add(1)
		return nil
	}
	var p *prepared
	if err == nil {
		p, err = decodeCacheFile(b, key)
	}
	if err == nil {
		// A payload behind a valid checksum was written by an engine, or forged by whoever can
		// write the cache directory. wazero allocates for the counts a module declares before it
		// finds the bytes missing (9 GB for a 5-byte import section declaring 84 million imports, a
		// fuzz campaign's find), so the module goes through the bounded decoder first, as a source
		// does. A cached module whose rewrite went over a limit its source met is only prepared
		// anew.
		err = wasm.Check(p.out, c.decode)
	}
	if err != nil {
		c.rejected.Add(1)
		return nil
	}
	c.hits.Add(1)
	p.fromCache = true
	return p
}

var errCacheFile = errors.New("not a valid cache file")

// readCacheFile reads a whole cache file whose payload is at most limit bytes. A file the engine
// did not write (a FIFO, a device, a huge file in the cache directory) is refused unread.
func readCacheFile(path string, limit int64) ([]byte, error) {
	b, err := boundedfile.Read(path, cacheHeaderSize+limit)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %w", errCacheFile, err)
	}
	return b, err
}

// decodeCacheFile checks a whole cache file against key and decodes its payload.
func decodeCacheFile(b []byte, key [32]byte) (*prepared, error) {
	if len(b) < cacheHeaderSize || string(b[:8]) != cacheMagic {
		return nil, fmt.Errorf("%w: no header", errCacheFile)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != cacheFormat || binary.LittleEndian.Uint32(b[12:]) != 0 {
		return nil, fmt.Errorf("%w: format %d", errCacheFile, v)
	}
	if !bytes.Equal(b[16:48], key[:]) {
		return nil, fmt.Errorf("%w: the key of another entry", errCacheFile)
	}
	payload := b[cacheHeaderSize:]
	if binary.LittleEndian.Uint64(b[48:]) != uint64(len(payload)) {
		return nil, fmt.Errorf("%w: truncated or extended", errCacheFile)
	}
	if sum := sha256.Sum256(payload); !bytes.Equal(sum[:], b[56:88]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errCacheFile)
	}
	return decodePayload(payload)
}

// store writes the entry of key, unless its payload would be over limit.
func (c *diskCache) store(key [32]byte, p *prepared, limit int64) {
	meta := appendMeta(nil, p)
	if int64(len(meta)+len(p.out)) > limit {
		return
	}
	if err := c.write(key, meta, p.out); err != nil {
		c.writeErrs.Add(1)
		return
	}
	c.stored.Add(1)
}

func (c *diskCache) write(key [32]byte, meta, out []byte) error {
	c.mkdirOnce.Do(func() { c.mkdirErr = os.MkdirAll(c.dir, 0o700) })
	if c.mkdirErr != nil {
		return c.mkdirErr
	}
	h := sha256.New()
	h.Write(meta)
	h.Write(out)
	hdr := make([]byte, 0, cacheHeaderSize)
	hdr = append(hdr, cacheMagic...)
	hdr = binary.LittleEndian.AppendUint32(hdr, cacheFormat)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = append(hdr, key[:]...)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(meta)+len(out)))
	hdr = h.Sum(hdr)
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(hdr)
	if err == nil {
		_, err = tmp.Write(meta)
	}
	if err == nil {
		_, err = tmp.Write(out)
	}
	if err == nil {
		// Synced before the rename, so that a crash cannot leave a named file with lost blocks.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path(key))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// appendMeta appends the payload's metadata (see the format's doc).
func appendMeta(b []byte, p *prepared) []byte {
	b = binary.AppendUvarint(b, uint64(p.tableMax))
	b = append(b, boolBits(p.hasStart, 1))
	b = binary.AppendUvarint(b, uint64(len(p.memories)))
	for _, m := range p.memories {
		b = binary.AppendUvarint(b, m.Min)
		b = binary.AppendUvarint(b, m.Max)
		b = append(b, boolBits(m.HasMax, 1)|boolBits(m.Shared, 2)|boolBits(m.Is64, 4))
	}
	for _, ts := range [][]wasm.TableType{p.tables, p.declaredTables} {
		b = binary.AppendUvarint(b, uint64(len(ts)))
		for _, t := range ts {
			b = append(b, t.ElemType)
			b = binary.AppendUvarint(b, uint64(t.Min))
			b = binary.AppendUvarint(b, uint64(t.Max))
			b = append(b, boolBits(t.HasMax, 1)|boolBits(t.Is64, 4))
		}
	}
	names := make([]string, 0, len(p.entryCharges))
	for n := range p.entryCharges {
		names = append(names, n)
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
		b = binary.AppendVarint(b, p.entryCharges[n])
	}
	b = binary.AppendUvarint(b, uint64(len(p.imports)))
	for _, im := range p.imports {
		b = appendString(appendString(b, im.Module), im.Name)
		b = append(b, byte(im.Kind))
	}
	b = binary.AppendUvarint(b, uint64(len(p.exports)))
	for _, ex := range p.exports {
		b = append(appendString(b, ex.Name), byte(ex.Kind))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func boolBits(v bool, bit byte) byte {
	if v {
		return bit
	}
	return 0
}

// payloadReader reads the metadata; the first error sticks and every read after it returns zero.
type payloadReader struct {
	b   []byte
	pos int
	err error
}

func (r *payloadReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: bad %s at payload byte %d", errCacheFile, what, r.pos)
	}
}

func (r *payloadReader) u(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 || v > max {
		r.fail(what)
		return 0
	}
	r.pos += n
	return v
}

func (r *payloadReader) s(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.pos:])
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.pos += n
	return v
}

func (r *payloadReader) byte(what string, allowed byte) byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) || r.b[r.pos]&^allowed != 0 {
		r.fail(what)
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

// count reads a count of entries of at least min bytes each, so that a count the rest of the
// payload cannot hold fails before anything is allocated for it.
func (r *payloadReader) count(what string, min int) int {
	return int(r.u(what, uint64((len(r.b)-r.pos)/min)))
}

func (r *payloadReader) str(what string) string {
	n := r.u(what, uint64(len(r.b)))
	if r.err != nil || n > uint64(len(r.b)-r.pos) {
		r.fail(what)
		return ""
	}
	s := string(r.b[r.pos : r.pos+int(n)])
	if !utf8.ValidString(s) {
		r.fail(what)
		return ""
	}
	r.pos += int(n)
	return s
}

func (r *payloadReader) tables() []wasm.TableType {
	n := r.count("table count", 4)
	var ts []wasm.TableType
	for range n {
		elem := r.byte("table element type", 0xff)
		lo := r.u("table minimum", 1<<32-1)
		hi := r.u("table maximum", 1<<32-1)
		f := r.byte("table flags", 1|4)
		if r.err != nil {
			return nil
		}
		ts = append(ts, wasm.TableType{ElemType: elem, Min: uint32(lo), Max: uint32(hi), HasMax: f&1 != 0, Is64: f&4 != 0})
	}
	return ts
}

// decodePayload decodes a payload whose checksum matched.
func decodePayload(b []byte) (*prepared, error) {
	r := &payloadReader{b: b}
	p := &prepared{}
	p.tableMax = uint32(r.u("table limit", 1<<32-1))
	p.hasStart = r.byte("flags", 1) != 0
	for range r.count("memory count", 3) {
		lo := r.u("memory minimum", 1<<64-1)
		hi := r.u("memory maximum", 1<<64-1)
		f := r.byte("memory flags", 1|2|4)
		p.memories = append(p.memories, wasm.MemoryType{Min: lo, Max: hi, HasMax: f&1 != 0, Shared: f&2 != 0, Is64: f&4 != 0})
	}
	p.tables = r.tables()
	p.declaredTables = r.tables()
	if n := r.count("entry charge count", 2); n > 0 {
		p.entryCharges = make(map[string]int64, n)
		for range n {
			name := r.str("entry charge name")
			p.entryCharges[name] = r.s("entry charge")
		}
	}
	for range r.count("import count", 3) {
		mod, name := r.str("import module"), r.str("import name")
		p.imports = append(p.imports, preparedExtern{Module: mod, Name: name, Kind: ExternKind(r.byte("import kind", 7))})
	}
	for range r.count("export count", 2) {
		name := r.str("export name")
		p.exports = append(p.exports, preparedExtern{Name: name, Kind: ExternKind(r.byte("export kind", 7))})
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.pos == len(b) {
		return nil, fmt.Errorf("%w: no module after the metadata", errCacheFile)
	}
	// One encoding per value: non-minimal numbers, duplicate or unsorted names, stray kind
	// values beyond the binary format's all differ from what the writer writes.
	if !bytes.Equal(appendMeta(nil, p), b[:r.pos]) {
		return nil, fmt.Errorf("%w: metadata not in canonical form", errCacheFile)
	}
	for _, x := range append(slices.Clip(p.imports), p.exports...) {
		if x.Kind > ExternKind(wasm.ExternTag) {
			return nil, fmt.Errorf("%w: extern kind %d", errCacheFile, x.Kind)
		}
	}
	p.out = b[r.pos:]
	return p, nil
}
