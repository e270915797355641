// memfs.js: an in-memory file system for kobako's worker. Go programs built with GOOS=js reach
// files through globalThis.fs, calling the part of Node's callback API that Go's syscall package
// uses (syscall/fs_js.go); a browser has none, and Go's own wasm_exec.js answers every call but a
// console write with ENOSYS. kobako needs files there: an ABI 1 call gets a scratch volume (a
// temporary directory) and zeroclaw's host reads plugins from a plugins directory. This file
// implements that part of the API over a tree in the worker's memory (directories, regular files,
// symbolic and hard links), and a process object whose working directory is "/". Load it before
// wasm_exec.js, which then keeps it.
"use strict";

(() => {
	const S_IFMT = 0o170000, S_IFDIR = 0o040000, S_IFREG = 0o100000, S_IFLNK = 0o120000;
	// Linux's values; Go reads them from fs.constants.
	const constants = {
		O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 0o100, O_EXCL: 0o200, O_TRUNC: 0o1000,
		O_APPEND: 0o2000, O_DIRECTORY: 0o200000, O_NOFOLLOW: 0o400000,
	};
	const ACCMODE = 3;
	const MAX_LINKS = 40; // symbolic links followed in one lookup, as Linux's ELOOP limit

	let nextIno = 1;
	const newNode = (mode) => {
		const t = Date.now();
		const kind = mode & S_IFMT;
		return {
			ino: nextIno++, mode, nlink: kind === S_IFDIR ? 2 : 1, atimeMs: t, mtimeMs: t, ctimeMs: t,
			data: new Uint8Array(0), size: 0, // a file's bytes: data holds size of them, with room to grow
			entries: kind === S_IFDIR ? new Map() : null,
			target: null, // a symbolic link's text
		};
	};
	const isDir = (n) => (n.mode & S_IFMT) === S_IFDIR;
	const isLink = (n) => (n.mode & S_IFMT) === S_IFLNK;
	const isReg = (n) => (n.mode & S_IFMT) === S_IFREG;
	const root = newNode(S_IFDIR | 0o755);

	const fail = (code, what) => {
		const e = new Error(`${code}: ${what}`);
		e.code = code;
		return e;
	};

	let cwd = "/";
	const currentDir = () => (globalThis.process && globalThis.process.cwd ? globalThis.process.cwd() : cwd);
	const absolute = (path) => {
		if (typeof path !== "string" || path === "") throw fail("ENOENT", "empty path");
		return path.startsWith("/") ? path : currentDir() + "/" + path;
	};

	// lookup resolves path to {node, parent, name}: node is null when only the last component is
	// missing (parent is then the directory it would be created in). The last component is followed
	// when it is a symbolic link only if follow is set; "..", like Linux's, is the physical parent.
	const lookup = (path, follow, hops = 0) => {
		const parts = absolute(path).split("/").filter((p) => p !== "" && p !== ".");
		const stack = [root], names = [];
		for (let i = 0; i < parts.length; i++) {
			const name = parts[i], dir = stack[stack.length - 1];
			if (!isDir(dir)) throw fail("ENOTDIR", path);
			if (name === "..") {
				if (stack.length > 1) { stack.pop(); names.pop(); }
				continue;
			}
			const last = i === parts.length - 1;
			const child = dir.entries.get(name);
			if (!child) {
				if (last) return { node: null, parent: dir, name };
				throw fail("ENOENT", path);
			}
			if (isLink(child) && (!last || follow)) {
				if (hops >= MAX_LINKS) throw fail("ELOOP", path);
				const base = child.target.startsWith("/") ? child.target : "/" + names.join("/") + "/" + child.target;
				return lookup(base + "/" + parts.slice(i + 1).join("/"), follow, hops + 1);
			}
			stack.push(child);
			names.push(name);
		}
		const node = stack[stack.length - 1];
		return { node, parent: stack.length > 1 ? stack[stack.length - 2] : root, name: names[names.length - 1] };
	};
	const existing = (path, follow) => {
		const r = lookup(path, follow);
		if (!r.node) throw fail("ENOENT", path);
		return r;
	};

	const stats = (n) => ({
		dev: 1, ino: n.ino, mode: n.mode, nlink: n.nlink, uid: 0, gid: 0, rdev: 0,
		size: isDir(n) ? 4096 : isLink(n) ? n.target.length : n.size,
		blksize: 4096, blocks: Math.ceil(n.size / 512),
		atimeMs: n.atimeMs, mtimeMs: n.mtimeMs, ctimeMs: n.ctimeMs,
		isDirectory() { return isDir(n); },
		isFile() { return isReg(n); },
		isSymbolicLink() { return isLink(n); },
	});

	const touch = (n) => { n.mtimeMs = n.ctimeMs = Date.now(); };

	// resize sets a file's size, zeroing what it grows by.
	const resize = (n, size) => {
		if (size > n.data.length) {
			const grown = new Uint8Array(Math.max(size, n.data.length * 2, 64));
			grown.set(n.data.subarray(0, n.size));
			n.data = grown;
		} else if (size < n.size) {
			n.data.fill(0, size, n.size);
		}
		n.size = size;
		touch(n);
	};

	// Open files: fd -> {node, pos, flags}. 0, 1 and 2 are the console.
	const files = new Map();
	let nextFd = 3;
	const file = (fd) => {
		const f = files.get(fd);
		if (!f) throw fail("EBADF", `fd ${fd}`);
		return f;
	};

	// Console output, a line at a time per stream.
	const decoder = new TextDecoder("utf-8");
	const pending = { 1: "", 2: "" };
	const writeConsole = (fd, buf) => {
		pending[fd] += decoder.decode(buf);
		const nl = pending[fd].lastIndexOf("\n");
		if (nl !== -1) {
			(fd === 2 ? console.warn : console.log)(pending[fd].substring(0, nl));
			pending[fd] = pending[fd].substring(nl + 1);
		}
		return buf.length;
	};

	const contains = (dir, n) => {
		if (dir === n) return true;
		if (!isDir(dir)) return false;
		for (const c of dir.entries.values()) if (isDir(c) && contains(c, n)) return true;
		return false;
	};

	const ops = {
		open(path, flags, mode) {
			const acc = flags & ACCMODE;
			const r = lookup(path, !(flags & constants.O_NOFOLLOW));
			let n = r.node;
			if (!n) {
				if (!(flags & constants.O_CREAT)) throw fail("ENOENT", path);
				n = newNode(S_IFREG | (mode & 0o7777));
				r.parent.entries.set(r.name, n);
				touch(r.parent);
			} else {
				if ((flags & constants.O_CREAT) && (flags & constants.O_EXCL)) throw fail("EEXIST", path);
				if (isLink(n)) throw fail("ELOOP", path); // O_NOFOLLOW on a link
				if (isDir(n) && acc !== constants.O_RDONLY) throw fail("EISDIR", path);
				if ((flags & constants.O_TRUNC) && isReg(n) && acc !== constants.O_RDONLY) resize(n, 0);
			}
			if ((flags & constants.O_DIRECTORY) && !isDir(n)) throw fail("ENOTDIR", path);
			const fd = nextFd++;
			files.set(fd, { node: n, pos: 0, flags });
			return fd;
		},
		close(fd) {
			if (fd > 2) { file(fd); files.delete(fd); }
		},
		fstat(fd) {
			if (fd <= 2) return stats({ ino: 0, mode: 0o020666, nlink: 1, size: 0, atimeMs: 0, mtimeMs: 0, ctimeMs: 0 });
			return stats(file(fd).node);
		},
		stat(path) { return stats(existing(path, true).node); },
		lstat(path) { return stats(existing(path, false).node); },
		read(fd, buf, offset, length, position) {
			if (fd <= 2) return 0; // stdin is empty
			const f = file(fd), n = f.node;
			if (isDir(n)) throw fail("EISDIR", `fd ${fd}`);
			if ((f.flags & ACCMODE) === constants.O_WRONLY) throw fail("EBADF", `fd ${fd} is write-only`);
			const pos = position === null || position === undefined ? f.pos : position;
			const count = Math.max(0, Math.min(length, n.size - pos));
			buf.set(n.data.subarray(pos, pos + count), offset);
			if (position === null || position === undefined) f.pos += count;
			n.atimeMs = Date.now();
			return count;
		},
		write(fd, buf, offset, length, position) {
			if (fd === 1 || fd === 2) return writeConsole(fd, buf.subarray(offset, offset + length));
			const f = file(fd), n = f.node;
			if ((f.flags & ACCMODE) === constants.O_RDONLY) throw fail("EBADF", `fd ${fd} is read-only`);
			const explicit = position !== null && position !== undefined;
			const pos = (f.flags & constants.O_APPEND) ? n.size : explicit ? position : f.pos;
			if (pos + length > n.size) resize(n, pos + length);
			n.data.set(buf.subarray(offset, offset + length), pos);
			touch(n);
			if (!explicit) f.pos = pos + length;
			return length;
		},
		fsync(fd) { if (fd > 2) file(fd); },
		ftruncate(fd, length) {
			const f = file(fd);
			if (!isReg(f.node)) throw fail("EINVAL", `fd ${fd}`);
			resize(f.node, length);
		},
		truncate(path, length) {
			const n = existing(path, true).node;
			if (isDir(n)) throw fail("EISDIR", path);
			resize(n, length);
		},
		readdir(path) {
			const n = existing(path, true).node;
			if (!isDir(n)) throw fail("ENOTDIR", path);
			return [...n.entries.keys()];
		},
		mkdir(path, perm) {
			const r = lookup(path, false);
			if (r.node) throw fail("EEXIST", path);
			r.parent.entries.set(r.name, newNode(S_IFDIR | (perm & 0o7777)));
			r.parent.nlink++;
			touch(r.parent);
		},
		rmdir(path) {
			const r = existing(path, false);
			if (r.node === root) throw fail("EBUSY", path);
			if (!isDir(r.node)) throw fail("ENOTDIR", path);
			if (r.node.entries.size > 0) throw fail("ENOTEMPTY", path);
			r.parent.entries.delete(r.name);
			r.parent.nlink--;
			touch(r.parent);
		},
		unlink(path) {
			const r = existing(path, false);
			if (isDir(r.node)) throw fail("EISDIR", path);
			r.parent.entries.delete(r.name);
			r.node.nlink--;
			touch(r.parent);
		},
		rename(from, to) {
			const s = existing(from, false);
			if (s.node === root) throw fail("EBUSY", from);
			const d = lookup(to, false);
			if (d.node === s.node) return;
			if (isDir(s.node) && contains(s.node, d.parent)) throw fail("EINVAL", `${to} is inside ${from}`);
			if (d.node) {
				if (isDir(s.node)) {
					if (!isDir(d.node)) throw fail("ENOTDIR", to);
					if (d.node.entries.size > 0) throw fail("ENOTEMPTY", to);
					d.parent.nlink--;
				} else if (isDir(d.node)) {
					throw fail("EISDIR", to);
				} else {
					d.node.nlink--;
				}
			}
			s.parent.entries.delete(s.name);
			d.parent.entries.set(d.name, s.node);
			if (isDir(s.node)) { s.parent.nlink--; d.parent.nlink++; }
			touch(s.parent);
			touch(d.parent);
		},
		chmod(path, mode) {
			const n = existing(path, true).node;
			n.mode = (n.mode & S_IFMT) | (mode & 0o7777);
			n.ctimeMs = Date.now();
		},
		fchmod(fd, mode) {
			const n = file(fd).node;
			n.mode = (n.mode & S_IFMT) | (mode & 0o7777);
			n.ctimeMs = Date.now();
		},
		chown(path) { existing(path, true); },
		fchown(fd) { file(fd); },
		lchown(path) { existing(path, false); },
		utimes(path, atime, mtime) {
			const n = existing(path, true).node;
			n.atimeMs = atime * 1000;
			n.mtimeMs = mtime * 1000;
			n.ctimeMs = Date.now();
		},
		link(path, link) {
			const s = existing(path, false);
			if (isDir(s.node)) throw fail("EPERM", path);
			const d = lookup(link, false);
			if (d.node) throw fail("EEXIST", link);
			d.parent.entries.set(d.name, s.node);
			s.node.nlink++;
			touch(d.parent);
		},
		symlink(target, link) {
			const d = lookup(link, false);
			if (d.node) throw fail("EEXIST", link);
			const n = newNode(S_IFLNK | 0o777);
			n.target = target;
			d.parent.entries.set(d.name, n);
			touch(d.parent);
		},
		readlink(path) {
			const n = existing(path, false).node;
			if (!isLink(n)) throw fail("EINVAL", path);
			return n.target;
		},
	};

	// Node's callback convention: callback(err) or callback(null, value), here before returning.
	// A bug throwing anything without a code still reaches Go as an error, never as a panic.
	const fs = { constants };
	for (const [name, op] of Object.entries(ops)) {
		fs[name] = (...args) => {
			const callback = args.pop();
			let value;
			try {
				value = op(...args);
			} catch (e) {
				if (!e || typeof e.code !== "string") e = fail("EIO", String(e && e.message || e));
				callback(e);
				return;
			}
			callback(null, value);
		};
	}
	fs.writeSync = (fd, buf) => (fd === 1 || fd === 2 ? writeConsole(fd, buf) : ops.write(fd, buf, 0, buf.length, null));

	const enosys = () => fail("ENOSYS", "not implemented");
	globalThis.fs = fs;
	// Node (where a test may run this file) has a process of its own, whose cwd Go then uses.
	globalThis.process ??= {
		getuid() { return -1; }, getgid() { return -1; }, geteuid() { return -1; }, getegid() { return -1; },
		getgroups() { throw enosys(); },
		pid: -1, ppid: -1,
		umask() { return 0o022; },
		cwd() { return cwd; },
		chdir(path) {
			const r = existing(path, true);
			if (!isDir(r.node)) throw fail("ENOTDIR", path);
			cwd = absolute(path);
		},
	};
	ops.mkdir("/tmp", 0o1777);

	// For a host that fills the tree before Go starts (tests copy fixtures in): make path and its
	// parents as directories, or write bytes to path.
	globalThis.memfs = {
		mkdirAll(path) {
			let p = "";
			for (const part of absolute(path).split("/").filter((x) => x !== "")) {
				p += "/" + part;
				if (!lookup(p, true).node) ops.mkdir(p, 0o755);
			}
		},
		writeFile(path, bytes) {
			const fd = ops.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
			ops.write(fd, bytes, 0, bytes.length, null);
			ops.close(fd);
		},
	};
})();
