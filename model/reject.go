package model

import "fmt"

// RejectCode says why the model dropped a configuration before ranking it.
type RejectCode int

// The reasons a configuration is dropped. The search counts them by code
// (Result.Rejected); Reject.String words them.
const (
	RejectDriveDominated        RejectCode = iota + 1 // a cheaper drive of its class does at least as well
	RejectDIMMDominated                               // a cheaper DIMM of the same capacity exists
	RejectAboveMaxMemory                              // more memory than the platform takes
	RejectReserveExceedsRAM                           // the OS reserve leaves no usable memory
	RejectNoFitWithoutSwap                            // the jobs overflow RAM and there is no swap
	RejectSwapTooSmall                                // the swap drives cannot hold the overflow
	RejectNoCurve                                     // no slowdown curve for Reject.Class
	RejectNoZramCurve                                 // no slowdown curve for zram
	RejectNoZswapCurve                                // no curve for zswap's pool or its drive
	RejectNoZramBackend                               // no zram backend Reject.Class in the factor files
	RejectZramIncompressible                          // compression ratio at most 1
	RejectZramTooIncompressible                       // compressed pages plus allocator loss cost more than they free
	RejectZramCannotHold                              // even fully compressed, the overflow does not fit
	RejectZramDiskTooSmall                            // the zram disk cannot hold the overflow
	RejectZramMemLimit                                // options.zram_mem_limit caps the compressed pool below it
	RejectZswapIncompressible                         // zswap's pool would stay empty
	RejectZswapPoolHoldsAll                           // the drives add nothing over zram
	RejectUnsupportedFit                              // fit ratio far below every curve (see Result.RejectedNotes)
)

// Reject is one reason a configuration was dropped: a code and, for the
// codes that name one, the curve class or zram algorithm. It is
// comparable, so the search counts by it.
type Reject struct {
	Code  RejectCode
	Class string // RejectNoCurve: the drive's curve class; RejectNoZramBackend: the algorithm
}

// String words r as the reports print it: the table, Markdown and
// workbook and the JSON and YAML "rejected" reason all show this text, and
// their golden files hold it, so the reports own these words. This is the
// one place they are written; the model compares codes, never the words.
func (r Reject) String() string {
	switch r.Code {
	case RejectDriveDominated:
		return "drive dominated by a cheaper one of the same class that is at least as large, fast and durable for this workload"
	case RejectDIMMDominated:
		return "DIMM dominated by a cheaper one of the same capacity"
	case RejectAboveMaxMemory:
		return "above the platform's maximum memory"
	case RejectReserveExceedsRAM:
		return "OS reserve larger than installed memory"
	case RejectNoFitWithoutSwap:
		return "does not fit in RAM without swap (would be OOM-killed or thrash)"
	case RejectSwapTooSmall:
		return "swap space too small for the overflow"
	case RejectNoCurve:
		return "no slowdown curve for " + r.Class
	case RejectNoZramCurve:
		return "no slowdown curve for zram"
	case RejectNoZswapCurve:
		return "no slowdown curve for zswap's parts"
	case RejectNoZramBackend:
		return "no zram backend " + r.Class + " in the factor files"
	case RejectZramIncompressible:
		return "data incompressible: zram cannot hold the overflow"
	case RejectZramTooIncompressible:
		return "data too incompressible for zram to hold the overflow in less RAM"
	case RejectZramCannotHold:
		return "zram cannot hold the overflow even fully compressed"
	case RejectZramDiskTooSmall:
		return "zram disk too small for the overflow"
	case RejectZramMemLimit:
		return "zram mem_limit too small for the compressed overflow"
	case RejectZswapIncompressible:
		return "data too incompressible for zswap's pool: the drives alone do the same"
	case RejectZswapPoolHoldsAll:
		return "zswap pool holds all the overflow: the drives add nothing over zram"
	case RejectUnsupportedFit:
		return "fit ratio far below any measured point (measure the job there: memplan profile --fits)"
	}
	return fmt.Sprintf("reject code %d", int(r.Code))
}

// reject is the Reject of a code that names no class.
func reject(c RejectCode) Reject { return Reject{Code: c} }
