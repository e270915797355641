package wasm

import "fmt"

// immKind says which immediates follow an opcode.
type immKind uint8

const (
	immNone         immKind = iota
	immBlock                // blocktype
	immIdx                  // one u32 index (label, function, local, global, table, type, tag, data, element)
	immIdx2                 // two u32 indices
	immBrTable              // vec(labelidx) labelidx
	immMemarg               // align (with the multi-memory flag) [memidx] offset
	immMemLane              // memarg, lane byte
	immLane                 // lane byte
	immI32                  // s32
	immI64                  // s64
	immF32                  // 4 bytes
	immF64                  // 8 bytes
	immV128                 // 16 bytes (v128.const, i8x16.shuffle)
	immHeapType             // s33 heap type (ref.null, ref.test, ref.cast)
	immSelectT              // vec(valtype)
	immTryTable             // blocktype vec(catch)
	immZeroByte             // one byte that must be 0 (atomic.fence)
	immBrOnCast             // flags byte, labelidx, heaptype, heaptype
	immCallIndirect         // typeidx tableidx
	immMemIdx               // memory index of memory.size/grow/fill
)

// Feature names, as FeatureUse.Feature reports them.
const (
	FeatureMultiValue        = "multi-value"
	FeatureMutableGlobal     = "mutable-global"
	FeatureSignExtension     = "sign-extension"
	FeatureNonTrappingF2I    = "nontrapping-float-to-int"
	FeatureBulkMemory        = "bulk-memory"
	FeatureReferenceTypes    = "reference-types"
	FeatureSIMD              = "simd"
	FeatureThreads           = "threads"
	FeatureExceptionHandling = "exception-handling"
	FeatureTailCall          = "tail-call"
	FeatureFunctionRefs      = "function-references"
	FeatureGC                = "gc"
	FeatureMemory64          = "memory64"
	FeatureMultiMemory       = "multi-memory"
	FeatureRelaxedSIMD       = "relaxed-simd"
	FeatureExtendedConst     = "extended-const"
)

// engineFeatures are the post-MVP features wazero's api.CoreFeaturesV2 enables.
var engineFeatures = map[string]bool{
	FeatureMultiValue:     true,
	FeatureMutableGlobal:  true,
	FeatureSignExtension:  true,
	FeatureNonTrappingF2I: true,
	FeatureBulkMemory:     true,
	FeatureReferenceTypes: true,
	FeatureSIMD:           true,
}

type opInfo struct {
	name    string
	imm     immKind
	feature string // "" for MVP instructions
	valid   bool
}

// Prefixes of multi-byte opcodes.
const (
	prefixGC      = 0xfb
	prefixMisc    = 0xfc
	prefixSIMD    = 0xfd
	prefixThreads = 0xfe
)

// Single-byte opcodes the instrumenter and decoder treat specially.
const (
	opUnreachable = 0x00
	opNop         = 0x01
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opElse        = 0x05
	opTry         = 0x06
	opCatch       = 0x07
	opEnd         = 0x0b
	opBr          = 0x0c
	opBrIf        = 0x0d
	opBrTable     = 0x0e
	opReturn      = 0x0f
	opCall        = 0x10
	opCallInd     = 0x11
	opReturnCall  = 0x12
	opDelegate    = 0x18
	opCatchAll    = 0x19
	opDrop        = 0x1a
	opTryTable    = 0x1f
	opLocalGet    = 0x20
	opLocalTee    = 0x22
	opGlobalGet   = 0x23
	opGlobalSet   = 0x24
	opI32Const    = 0x41
	opI64Const    = 0x42
	opI32GeU      = 0x4f
	opF32Const    = 0x43
	opF64Const    = 0x44
	opI64GeS      = 0x59
	opI64Sub      = 0x7d
	opRefNull     = 0xd0
	opRefFunc     = 0xd2
	opBrOnNull    = 0xd5
	opBrOnNonNull = 0xd6
)

var (
	ops1    [256]opInfo
	opsGC   [31]opInfo
	opsMisc [18]opInfo
	opsSIMD [0x114]opInfo
	opsThr  [0x4f]opInfo
)

func set1(op byte, name string, imm immKind, feature string) {
	ops1[op] = opInfo{name: name, imm: imm, feature: feature, valid: true}
}

func init() {
	control := []struct {
		op   byte
		name string
		imm  immKind
		feat string
	}{
		{0x00, "unreachable", immNone, ""}, {0x01, "nop", immNone, ""},
		{0x02, "block", immBlock, ""}, {0x03, "loop", immBlock, ""}, {0x04, "if", immBlock, ""},
		{0x05, "else", immNone, ""},
		{0x06, "try", immBlock, FeatureExceptionHandling}, {0x07, "catch", immIdx, FeatureExceptionHandling},
		{0x08, "throw", immIdx, FeatureExceptionHandling}, {0x09, "rethrow", immIdx, FeatureExceptionHandling},
		{0x0a, "throw_ref", immNone, FeatureExceptionHandling},
		{0x0b, "end", immNone, ""}, {0x0c, "br", immIdx, ""}, {0x0d, "br_if", immIdx, ""},
		{0x0e, "br_table", immBrTable, ""}, {0x0f, "return", immNone, ""},
		{0x10, "call", immIdx, ""}, {0x11, "call_indirect", immCallIndirect, ""},
		{0x12, "return_call", immIdx, FeatureTailCall}, {0x13, "return_call_indirect", immCallIndirect, FeatureTailCall},
		{0x14, "call_ref", immIdx, FeatureFunctionRefs}, {0x15, "return_call_ref", immIdx, FeatureTailCall},
		{0x18, "delegate", immIdx, FeatureExceptionHandling}, {0x19, "catch_all", immNone, FeatureExceptionHandling},
		{0x1a, "drop", immNone, ""}, {0x1b, "select", immNone, ""}, {0x1c, "select", immSelectT, FeatureReferenceTypes},
		{0x1f, "try_table", immTryTable, FeatureExceptionHandling},
		{0x20, "local.get", immIdx, ""}, {0x21, "local.set", immIdx, ""}, {0x22, "local.tee", immIdx, ""},
		{0x23, "global.get", immIdx, ""}, {0x24, "global.set", immIdx, ""},
		{0x25, "table.get", immIdx, FeatureReferenceTypes}, {0x26, "table.set", immIdx, FeatureReferenceTypes},
		{0x3f, "memory.size", immMemIdx, ""}, {0x40, "memory.grow", immMemIdx, ""},
		{0x41, "i32.const", immI32, ""}, {0x42, "i64.const", immI64, ""},
		{0x43, "f32.const", immF32, ""}, {0x44, "f64.const", immF64, ""},
		{0xd0, "ref.null", immHeapType, FeatureReferenceTypes}, {0xd1, "ref.is_null", immNone, FeatureReferenceTypes},
		{0xd2, "ref.func", immIdx, FeatureReferenceTypes}, {0xd3, "ref.eq", immNone, FeatureGC},
		{0xd4, "ref.as_non_null", immNone, FeatureFunctionRefs}, {0xd5, "br_on_null", immIdx, FeatureFunctionRefs},
		{0xd6, "br_on_non_null", immIdx, FeatureFunctionRefs},
	}
	for _, c := range control {
		set1(c.op, c.name, c.imm, c.feat)
	}
	mem := []string{"i32.load", "i64.load", "f32.load", "f64.load", "i32.load8_s", "i32.load8_u",
		"i32.load16_s", "i32.load16_u", "i64.load8_s", "i64.load8_u", "i64.load16_s", "i64.load16_u",
		"i64.load32_s", "i64.load32_u", "i32.store", "i64.store", "f32.store", "f64.store", "i32.store8",
		"i32.store16", "i64.store8", "i64.store16", "i64.store32"}
	for i, n := range mem {
		set1(byte(0x28+i), n, immMemarg, "")
	}
	var num []string
	for _, t := range []string{"i32", "i64"} {
		num = append(num, t+".eqz")
		for _, c := range []string{"eq", "ne", "lt_s", "lt_u", "gt_s", "gt_u", "le_s", "le_u", "ge_s", "ge_u"} {
			num = append(num, t+"."+c)
		}
	}
	for _, t := range []string{"f32", "f64"} {
		for _, c := range []string{"eq", "ne", "lt", "gt", "le", "ge"} {
			num = append(num, t+"."+c)
		}
	}
	for _, t := range []string{"i32", "i64"} {
		for _, c := range []string{"clz", "ctz", "popcnt", "add", "sub", "mul", "div_s", "div_u", "rem_s",
			"rem_u", "and", "or", "xor", "shl", "shr_s", "shr_u", "rotl", "rotr"} {
			num = append(num, t+"."+c)
		}
	}
	for _, t := range []string{"f32", "f64"} {
		for _, c := range []string{"abs", "neg", "ceil", "floor", "trunc", "nearest", "sqrt", "add", "sub",
			"mul", "div", "min", "max", "copysign"} {
			num = append(num, t+"."+c)
		}
	}
	num = append(num, "i32.wrap_i64", "i32.trunc_f32_s", "i32.trunc_f32_u", "i32.trunc_f64_s",
		"i32.trunc_f64_u", "i64.extend_i32_s", "i64.extend_i32_u", "i64.trunc_f32_s", "i64.trunc_f32_u",
		"i64.trunc_f64_s", "i64.trunc_f64_u", "f32.convert_i32_s", "f32.convert_i32_u", "f32.convert_i64_s",
		"f32.convert_i64_u", "f32.demote_f64", "f64.convert_i32_s", "f64.convert_i32_u", "f64.convert_i64_s",
		"f64.convert_i64_u", "f64.promote_f32", "i32.reinterpret_f32", "i64.reinterpret_f64",
		"f32.reinterpret_i32", "f64.reinterpret_i64")
	for i, n := range num {
		set1(byte(0x45+i), n, immNone, "")
	}
	if 0x45+len(num) != 0xc0 {
		panic("BUG: numeric opcode table")
	}
	for i, n := range []string{"i32.extend8_s", "i32.extend16_s", "i64.extend8_s", "i64.extend16_s", "i64.extend32_s"} {
		set1(byte(0xc0+i), n, immNone, FeatureSignExtension)
	}

	misc := []struct {
		name string
		imm  immKind
		feat string
	}{
		{"i32.trunc_sat_f32_s", immNone, FeatureNonTrappingF2I}, {"i32.trunc_sat_f32_u", immNone, FeatureNonTrappingF2I},
		{"i32.trunc_sat_f64_s", immNone, FeatureNonTrappingF2I}, {"i32.trunc_sat_f64_u", immNone, FeatureNonTrappingF2I},
		{"i64.trunc_sat_f32_s", immNone, FeatureNonTrappingF2I}, {"i64.trunc_sat_f32_u", immNone, FeatureNonTrappingF2I},
		{"i64.trunc_sat_f64_s", immNone, FeatureNonTrappingF2I}, {"i64.trunc_sat_f64_u", immNone, FeatureNonTrappingF2I},
		{"memory.init", immIdx2, FeatureBulkMemory}, {"data.drop", immIdx, FeatureBulkMemory},
		{"memory.copy", immIdx2, FeatureBulkMemory}, {"memory.fill", immMemIdx, FeatureBulkMemory},
		{"table.init", immIdx2, FeatureBulkMemory}, {"elem.drop", immIdx, FeatureBulkMemory},
		{"table.copy", immIdx2, FeatureBulkMemory}, {"table.grow", immIdx, FeatureReferenceTypes},
		{"table.size", immIdx, FeatureReferenceTypes}, {"table.fill", immIdx, FeatureReferenceTypes},
	}
	for i, c := range misc {
		opsMisc[i] = opInfo{name: c.name, imm: c.imm, feature: c.feat, valid: true}
	}

	for i, n := range simdNames {
		if n == "" {
			continue
		}
		imm := immNone
		switch {
		case i <= 0x0b || i == 0x5c || i == 0x5d:
			imm = immMemarg
		case i == 0x0c || i == 0x0d:
			imm = immV128
		case i >= 0x15 && i <= 0x22:
			imm = immLane
		case i >= 0x54 && i <= 0x5b:
			imm = immMemLane
		}
		opsSIMD[i] = opInfo{name: n, imm: imm, feature: FeatureSIMD, valid: true}
	}
	for i, n := range relaxedSIMDNames {
		opsSIMD[0x100+i] = opInfo{name: n, imm: immNone, feature: FeatureRelaxedSIMD, valid: true}
	}

	opsThr[0] = opInfo{name: "memory.atomic.notify", imm: immMemarg, feature: FeatureThreads, valid: true}
	opsThr[1] = opInfo{name: "memory.atomic.wait32", imm: immMemarg, feature: FeatureThreads, valid: true}
	opsThr[2] = opInfo{name: "memory.atomic.wait64", imm: immMemarg, feature: FeatureThreads, valid: true}
	opsThr[3] = opInfo{name: "atomic.fence", imm: immZeroByte, feature: FeatureThreads, valid: true}
	atomics := []string{"i32.atomic.load", "i64.atomic.load", "i32.atomic.load8_u", "i32.atomic.load16_u",
		"i64.atomic.load8_u", "i64.atomic.load16_u", "i64.atomic.load32_u", "i32.atomic.store",
		"i64.atomic.store", "i32.atomic.store8", "i32.atomic.store16", "i64.atomic.store8",
		"i64.atomic.store16", "i64.atomic.store32"}
	for _, rmw := range []string{"add", "sub", "and", "or", "xor", "xchg", "cmpxchg"} {
		atomics = append(atomics, "i32.atomic.rmw."+rmw, "i64.atomic.rmw."+rmw, "i32.atomic.rmw8."+rmw+"_u",
			"i32.atomic.rmw16."+rmw+"_u", "i64.atomic.rmw8."+rmw+"_u", "i64.atomic.rmw16."+rmw+"_u",
			"i64.atomic.rmw32."+rmw+"_u")
	}
	for i, n := range atomics {
		opsThr[0x10+i] = opInfo{name: n, imm: immMemarg, feature: FeatureThreads, valid: true}
	}
	if 0x10+len(atomics) != len(opsThr) {
		panic("BUG: atomic opcode table")
	}

	gc := []struct {
		name string
		imm  immKind
	}{
		{"struct.new", immIdx}, {"struct.new_default", immIdx}, {"struct.get", immIdx2}, {"struct.get_s", immIdx2},
		{"struct.get_u", immIdx2}, {"struct.set", immIdx2}, {"array.new", immIdx}, {"array.new_default", immIdx},
		{"array.new_fixed", immIdx2}, {"array.new_data", immIdx2}, {"array.new_elem", immIdx2},
		{"array.get", immIdx}, {"array.get_s", immIdx}, {"array.get_u", immIdx}, {"array.set", immIdx},
		{"array.len", immNone}, {"array.fill", immIdx}, {"array.copy", immIdx2}, {"array.init_data", immIdx2},
		{"array.init_elem", immIdx2}, {"ref.test", immHeapType}, {"ref.test null", immHeapType},
		{"ref.cast", immHeapType}, {"ref.cast null", immHeapType}, {"br_on_cast", immBrOnCast},
		{"br_on_cast_fail", immBrOnCast}, {"any.convert_extern", immNone}, {"extern.convert_any", immNone},
		{"ref.i31", immNone}, {"i31.get_s", immNone}, {"i31.get_u", immNone},
	}
	for i, c := range gc {
		opsGC[i] = opInfo{name: c.name, imm: c.imm, feature: FeatureGC, valid: true}
	}
}

// lookupOp returns the description of op (see instr.op).
func lookupOp(op uint32) opInfo {
	if op < 0x100 {
		return ops1[op]
	}
	prefix, sub := op>>16, op&0xffff
	var tab []opInfo
	switch prefix {
	case prefixGC:
		tab = opsGC[:]
	case prefixMisc:
		tab = opsMisc[:]
	case prefixSIMD:
		tab = opsSIMD[:]
	case prefixThreads:
		tab = opsThr[:]
	}
	if int(sub) < len(tab) {
		return tab[sub]
	}
	return opInfo{}
}

// opString formats an opcode the way FeatureUse.Where shows it: "0xfe 0x10 (i32.atomic.load)".
func opString(op uint32) string {
	info := lookupOp(op)
	var code string
	if op < 0x100 {
		code = fmt.Sprintf("0x%02x", op)
	} else {
		code = fmt.Sprintf("0x%02x 0x%02x", op>>16, op&0xffff)
	}
	if info.name == "" {
		return code
	}
	return code + " (" + info.name + ")"
}

// simdNames lists the 0xfd opcodes of the 128-bit SIMD proposal by sub-opcode; "" marks unused
// numbers.
var simdNames = [256]string{
	"v128.load", "v128.load8x8_s", "v128.load8x8_u", "v128.load16x4_s", "v128.load16x4_u",
	"v128.load32x2_s", "v128.load32x2_u", "v128.load8_splat", "v128.load16_splat", "v128.load32_splat",
	"v128.load64_splat", "v128.store", "v128.const", "i8x16.shuffle", "i8x16.swizzle", "i8x16.splat",
	"i16x8.splat", "i32x4.splat", "i64x2.splat", "f32x4.splat", "f64x2.splat",
	"i8x16.extract_lane_s", "i8x16.extract_lane_u", "i8x16.replace_lane", "i16x8.extract_lane_s",
	"i16x8.extract_lane_u", "i16x8.replace_lane", "i32x4.extract_lane", "i32x4.replace_lane",
	"i64x2.extract_lane", "i64x2.replace_lane", "f32x4.extract_lane", "f32x4.replace_lane",
	"f64x2.extract_lane", "f64x2.replace_lane",
	// 0x23
	"i8x16.eq", "i8x16.ne", "i8x16.lt_s", "i8x16.lt_u", "i8x16.gt_s", "i8x16.gt_u", "i8x16.le_s",
	"i8x16.le_u", "i8x16.ge_s", "i8x16.ge_u",
	"i16x8.eq", "i16x8.ne", "i16x8.lt_s", "i16x8.lt_u", "i16x8.gt_s", "i16x8.gt_u", "i16x8.le_s",
	"i16x8.le_u", "i16x8.ge_s", "i16x8.ge_u",
	"i32x4.eq", "i32x4.ne", "i32x4.lt_s", "i32x4.lt_u", "i32x4.gt_s", "i32x4.gt_u", "i32x4.le_s",
	"i32x4.le_u", "i32x4.ge_s", "i32x4.ge_u",
	"f32x4.eq", "f32x4.ne", "f32x4.lt", "f32x4.gt", "f32x4.le", "f32x4.ge",
	"f64x2.eq", "f64x2.ne", "f64x2.lt", "f64x2.gt", "f64x2.le", "f64x2.ge",
	// 0x4d
	"v128.not", "v128.and", "v128.andnot", "v128.or", "v128.xor", "v128.bitselect", "v128.any_true",
	// 0x54
	"v128.load8_lane", "v128.load16_lane", "v128.load32_lane", "v128.load64_lane", "v128.store8_lane",
	"v128.store16_lane", "v128.store32_lane", "v128.store64_lane", "v128.load32_zero", "v128.load64_zero",
	"f32x4.demote_f64x2_zero", "f64x2.promote_low_f32x4",
	// 0x60
	"i8x16.abs", "i8x16.neg", "i8x16.popcnt", "i8x16.all_true", "i8x16.bitmask",
	"i8x16.narrow_i16x8_s", "i8x16.narrow_i16x8_u", "f32x4.ceil", "f32x4.floor", "f32x4.trunc",
	"f32x4.nearest", "i8x16.shl", "i8x16.shr_s", "i8x16.shr_u", "i8x16.add", "i8x16.add_sat_s",
	"i8x16.add_sat_u", "i8x16.sub", "i8x16.sub_sat_s", "i8x16.sub_sat_u", "f64x2.ceil", "f64x2.floor",
	"i8x16.min_s", "i8x16.min_u", "i8x16.max_s", "i8x16.max_u", "f64x2.trunc", "i8x16.avgr_u",
	"i16x8.extadd_pairwise_i8x16_s", "i16x8.extadd_pairwise_i8x16_u", "i32x4.extadd_pairwise_i16x8_s",
	"i32x4.extadd_pairwise_i16x8_u",
	// 0x80
	"i16x8.abs", "i16x8.neg", "i16x8.q15mulr_sat_s", "i16x8.all_true", "i16x8.bitmask",
	"i16x8.narrow_i32x4_s", "i16x8.narrow_i32x4_u", "i16x8.extend_low_i8x16_s",
	"i16x8.extend_high_i8x16_s", "i16x8.extend_low_i8x16_u", "i16x8.extend_high_i8x16_u", "i16x8.shl",
	"i16x8.shr_s", "i16x8.shr_u", "i16x8.add", "i16x8.add_sat_s", "i16x8.add_sat_u", "i16x8.sub",
	"i16x8.sub_sat_s", "i16x8.sub_sat_u", "f64x2.nearest", "i16x8.mul", "i16x8.min_s", "i16x8.min_u",
	"i16x8.max_s", "i16x8.max_u", "", "i16x8.avgr_u", "i16x8.extmul_low_i8x16_s",
	"i16x8.extmul_high_i8x16_s", "i16x8.extmul_low_i8x16_u", "i16x8.extmul_high_i8x16_u",
	// 0xa0
	"i32x4.abs", "i32x4.neg", "", "i32x4.all_true", "i32x4.bitmask", "", "", "i32x4.extend_low_i16x8_s",
	"i32x4.extend_high_i16x8_s", "i32x4.extend_low_i16x8_u", "i32x4.extend_high_i16x8_u", "i32x4.shl",
	"i32x4.shr_s", "i32x4.shr_u", "i32x4.add", "", "", "i32x4.sub", "", "", "", "i32x4.mul",
	"i32x4.min_s", "i32x4.min_u", "i32x4.max_s", "i32x4.max_u", "i32x4.dot_i16x8_s", "",
	"i32x4.extmul_low_i16x8_s", "i32x4.extmul_high_i16x8_s", "i32x4.extmul_low_i16x8_u",
	"i32x4.extmul_high_i16x8_u",
	// 0xc0
	"i64x2.abs", "i64x2.neg", "", "i64x2.all_true", "i64x2.bitmask", "", "", "i64x2.extend_low_i32x4_s",
	"i64x2.extend_high_i32x4_s", "i64x2.extend_low_i32x4_u", "i64x2.extend_high_i32x4_u", "i64x2.shl",
	"i64x2.shr_s", "i64x2.shr_u", "i64x2.add", "", "", "i64x2.sub", "", "", "", "i64x2.mul",
	"i64x2.eq", "i64x2.ne", "i64x2.lt_s", "i64x2.gt_s", "i64x2.le_s", "i64x2.ge_s",
	"i64x2.extmul_low_i32x4_s", "i64x2.extmul_high_i32x4_s", "i64x2.extmul_low_i32x4_u",
	"i64x2.extmul_high_i32x4_u",
	// 0xe0
	"f32x4.abs", "f32x4.neg", "", "f32x4.sqrt", "f32x4.add", "f32x4.sub", "f32x4.mul", "f32x4.div",
	"f32x4.min", "f32x4.max", "f32x4.pmin", "f32x4.pmax", "f64x2.abs", "f64x2.neg", "", "f64x2.sqrt",
	"f64x2.add", "f64x2.sub", "f64x2.mul", "f64x2.div", "f64x2.min", "f64x2.max", "f64x2.pmin",
	"f64x2.pmax", "i32x4.trunc_sat_f32x4_s", "i32x4.trunc_sat_f32x4_u", "f32x4.convert_i32x4_s",
	"f32x4.convert_i32x4_u", "i32x4.trunc_sat_f64x2_s_zero", "i32x4.trunc_sat_f64x2_u_zero",
	"f64x2.convert_low_i32x4_s", "f64x2.convert_low_i32x4_u",
}

// relaxedSIMDNames lists the 0xfd 0x100..0x113 opcodes of the relaxed SIMD proposal.
var relaxedSIMDNames = []string{
	"i8x16.relaxed_swizzle", "i32x4.relaxed_trunc_f32x4_s", "i32x4.relaxed_trunc_f32x4_u",
	"i32x4.relaxed_trunc_f64x2_s_zero", "i32x4.relaxed_trunc_f64x2_u_zero", "f32x4.relaxed_madd",
	"f32x4.relaxed_nmadd", "f64x2.relaxed_madd", "f64x2.relaxed_nmadd", "i8x16.relaxed_laneselect",
	"i16x8.relaxed_laneselect", "i32x4.relaxed_laneselect", "i64x2.relaxed_laneselect",
	"f32x4.relaxed_min", "f32x4.relaxed_max", "f64x2.relaxed_min", "f64x2.relaxed_max",
	"i16x8.relaxed_q15mulr_s", "i16x8.relaxed_dot_i8x16_i7x16_s", "i32x4.relaxed_dot_i8x16_i7x16_add_s",
}
