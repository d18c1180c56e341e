"""Shared-memory requests of the lab 5 and lab 6 references, lane by lane, and the wavefronts they take.

Shared memory has 32 banks of 4-byte words. A warp's request is served in wavefronts: passes through the banks in
which each bank gives one word, to every lane that asked for it (a broadcast). The rule below is the emulator's
(common/emu/requests.cpp, docs/emulator.md "Requests, sectors and wavefronts"): accesses of up to 4 bytes take as
many wavefronts as their busiest bank has distinct words; 8-byte accesses are served a half-warp at a time and
16-byte ones a quarter-warp at a time, and two such phases (the two half-warps; quarters 0 and 1, quarters 2 and 3)
share a wavefront when together they need no bank twice and either share no word or touch at most two addresses.
The ideal is the fewest wavefronts of 128 bytes the distinct bytes asked for could take (for 8- and 16-byte
accesses, the wavefronts they take when no half- or quarter-warp meets a bank twice).

The references' accesses follow from their index arithmetic and lab.h's constants (`accesses`): for one block and
one phase, every warp's requests of each access, as byte offsets from the start of its array (a request stays in
one array, and a shift of every lane by whole words changes no count). Every block and phase makes the same
requests, so a launch makes tiles · phases times these (split-K or not).

The emulator counts the accesses as the source writes them, each through a float4 pointer one 16-byte request as
nvcc makes it (docs/emulator.md): lab 5's store into Bs and lab 6's loads from As and Bs. The float4 form is what
nvcc also makes of lab 5's scalar loads in the inner loop: 16-byte requests (eight scalar loads of a row become
two). Lab 6's source is already in that form.
"""
from dataclasses import dataclass

BANKS = 32
WORD_BYTES = 4
WARP_SIZE = 32
WAVEFRONT_BYTES = BANKS * WORD_BYTES

# What the lessons call each access of the references to shared memory.
ACCESSES = {
    "As_store": "each of the four store lines into As (one float of A's float4 each)",
    "Bs_store": "the float4 store into Bs",
    "As_load": "the inner loop's loads from As",
    "Bs_load": "the inner loop's loads from Bs",
}
# Those made of float4s on the GPU: the loads (nvcc's form of lab 5's scalar loads, lab 6's own source) and the
# store into Bs.
FLOAT4_ACCESSES = ("Bs_store", "As_load", "Bs_load")
LABS = (5, 6)


def words(offsets, size):
    """The distinct 4-byte words the lanes' accesses of `size` bytes at `offsets` (None: inactive) touch."""
    return {w for off in offsets if off is not None
            for w in range(off // WORD_BYTES, (off + size - 1) // WORD_BYTES + 1)}


def busiest_bank(word_set):
    """The most distinct words in one bank."""
    per_bank = {}
    for w in word_set:
        per_bank[w % BANKS] = per_bank.get(w % BANKS, 0) + 1
    return max(per_bank.values(), default=0)


def wavefronts(offsets, size, conflict_free=False):
    """The wavefronts of one request: 32 byte offsets (None for an inactive lane) of `size`-byte accesses;
    `conflict_free`: as if no phase (the warp, a half- or a quarter-warp) met a bank twice."""
    most = (lambda w: min(1, busiest_bank(w))) if conflict_free else busiest_bank
    if size <= WORD_BYTES:
        return busiest_bank(words(offsets, size))
    phase = WARP_SIZE // (size // WORD_BYTES)  # 16 lanes for 8 bytes, 8 for 16
    total = 0
    for first in range(0, WARP_SIZE, 2 * phase):
        a, b = offsets[first:first + phase], offsets[first + phase:first + 2 * phase]
        wa, wb = words(a, size), words(b, size)
        if not wa or not wb:
            total += most(wa) + most(wb)
            continue
        addresses = {off for off in a + b if off is not None}
        merged = busiest_bank(wa | wb) == 1 and (not wa & wb or len(addresses) <= 2)
        total += 1 if merged else most(wa) + most(wb)
    return total


def ideal(offsets, size):
    """The fewest wavefronts of 128 bytes the distinct bytes of one request could take; for 8- and 16-byte accesses,
    served a half- or a quarter-warp at a time, the wavefronts they take when no phase meets a bank twice."""
    distinct = {byte for off in offsets if off is not None for byte in range(off, off + size)}
    return max(-(-len(distinct) // WAVEFRONT_BYTES), wavefronts(offsets, size, True) if size > WORD_BYTES else 0)


@dataclass(frozen=True)
class Access:
    """One access of the kernel source: `size` bytes per lane, the requests one block makes of it in one phase
    (each a tuple of byte offsets, lane by lane), and how that count comes about (`per_block`, a working)."""
    size: int
    requests: tuple
    per_block: str


def ways(access):
    """The most distinct words one bank holds among the lanes served together (the warp; a half-warp for 8 bytes, a
    quarter-warp for 16): an n-way bank conflict, 1 when there is none."""
    phase = WARP_SIZE // max(1, access.size // WORD_BYTES)
    return max(busiest_bank(words(pad(r)[first:first + phase], access.size))
               for r in access.requests for first in range(0, WARP_SIZE, phase))


def lanes(first_tid, threads):
    return range(first_tid, min(first_tid + WARP_SIZE, threads))


def lab5_accesses(c, float4):
    """The lab 5 reference (solutions/lab5-register-tiling/kernel.cu): a (BN/TN)×(BM/TM) block, tid = ty·(BN/TN) +
    tx, a warp 32 consecutive tids; one float4 of A and one of B per thread and phase, stored at As[a_tx + 0..3][a_ty]
    and Bs[b_ty][b_tx]; per step k, TM floats of As[k][ty·TM ..] and TN of Bs[k][tx·TN ..]."""
    BM, BN, BK, TM, TN = c["BM"], c["BN"], c["BK"], c["TM"], c["TN"]
    threads = (BM // TM) * (BN // TN)
    if BM * BK // 4 != threads or BK * BN // 4 != threads or BK % 4 or BN % 4 or TN % 4 or TM % 4:
        raise ValueError("lab 5's reference needs one float4 of each tile per thread and float4 rows: "
                         "BM·BK/4 = BK·BN/4 = (BM/TM)·(BN/TN), BK, BN, TM and TN multiples of 4")
    warps = -(-threads // WARP_SIZE)
    step = 4 if float4 else 1  # floats per load request
    out = {name: [] for name in ACCESSES}
    for warp in range(0, threads, WARP_SIZE):
        tids = lanes(warp, threads)
        tx = [t % (BN // TN) for t in tids]
        ty = [t // (BN // TN) for t in tids]
        a_ty = [t // (BK // 4) for t in tids]
        a_tx = [t % (BK // 4) * 4 for t in tids]
        b_ty = [t // (BN // 4) for t in tids]
        b_tx = [t % (BN // 4) * 4 for t in tids]
        # As[a_tx + 0][a_ty] = a.x: the first of the four store lines (the others are whole rows further)
        out["As_store"].append([(x * BM + y) * WORD_BYTES for x, y in zip(a_tx, a_ty)])
        out["Bs_store"].append([(y * BN + x) * WORD_BYTES for x, y in zip(b_tx, b_ty)])
        for k in range(BK):
            for i in range(0, TM, step):
                out["As_load"].append([(k * BM + y * TM + i) * WORD_BYTES for y in ty])
            for j in range(0, TN, step):
                out["Bs_load"].append([(k * BN + x * TN + j) * WORD_BYTES for x in tx])
    per_request = "a float4" if float4 else "a float"
    per_block = {
        "As_store": "warps = %d" % warps,
        "Bs_store": "warps = %d" % warps,
        "As_load": "warps · BK · TM/%d (%s each) = %d · %d · %d" % (step, per_request, warps, BK, TM // step),
        "Bs_load": "warps · BK · TN/%d (%s each) = %d · %d · %d" % (step, per_request, warps, BK, TN // step),
    }
    sizes = {"As_store": WORD_BYTES, "Bs_store": 4 * WORD_BYTES, "As_load": step * WORD_BYTES,
             "Bs_load": step * WORD_BYTES}
    return {name: Access(sizes[name], tuple(tuple(r) for r in out[name]), per_block[name].replace("/1 ", " "))
            for name in ACCESSES}


def lab6_accesses(c, float4):
    """The lab 6 reference (solutions/lab6-warptiling/kernel.cu, its TileShape with lab.h's constants): warp w of
    the block's 32·(BM/WM)·(BN/WN) threads computes warp tile (w / (BN/WN), w % (BN/WN)); lane l is at thread_row
    l / (WSUBN/TN), thread_col l % (WSUBN/TN) of each WSUBM×WSUBN sub-tile. Float4 number f = tid + i·THREADS of
    the A tile goes to As[f / BM · 4 + 0..3][f % BM], of the B tile to Bs[f / (BN/4)][f % (BN/4) · 4]. The inner
    loop loads float4s, WMITER·TM/4 from As and WNITER·TN/4 from Bs per step k: the same requests on the GPU and
    on the emulator (`float4` changes nothing here)."""
    BM, BN, BK, WM, WN = c["BM"], c["BN"], c["BK"], c["WM"], c["WN"]
    WMITER, WNITER, TM, TN = c["WMITER"], c["WNITER"], c["TM"], c["TN"]
    WSUBM, WSUBN = WM // WMITER, WN // WNITER
    threads = WARP_SIZE * (BM // WM) * (BN // WN)
    if (BM * BK // 4) % threads or (BK * BN // 4) % threads or TM % 4 or TN % 4 or BK % 4:
        raise ValueError("lab 6's reference needs whole float4s of each tile per thread and TM, TN, BK multiples "
                         "of 4")
    warps = threads // WARP_SIZE
    a_loads, b_loads = BM * BK // 4 // threads, BK * BN // 4 // threads
    out = {name: [] for name in ACCESSES}
    for warp in range(0, threads, WARP_SIZE):
        tids = list(lanes(warp, threads))
        w = warp // WARP_SIZE
        warp_row, warp_col = w // (BN // WN), w % (BN // WN)
        tile_row = [warp_row * WM + (t % WARP_SIZE) // (WSUBN // TN) * TM for t in tids]
        tile_col = [warp_col * WN + (t % WARP_SIZE) % (WSUBN // TN) * TN for t in tids]
        for i in range(a_loads):
            f = [t + i * threads for t in tids]
            out["As_store"].append([((x // BM * 4) * BM + x % BM) * WORD_BYTES for x in f])
        for i in range(b_loads):
            f = [t + i * threads for t in tids]
            out["Bs_store"].append([(x // (BN // 4) * BN + x % (BN // 4) * 4) * WORD_BYTES for x in f])
        for k in range(BK):
            for wm in range(WMITER):
                for i in range(0, TM, 4):
                    out["As_load"].append([(k * BM + r + wm * WSUBM + i) * WORD_BYTES for r in tile_row])
            for wn in range(WNITER):
                for j in range(0, TN, 4):
                    out["Bs_load"].append([(k * BN + col + wn * WSUBN + j) * WORD_BYTES for col in tile_col])
    per_block = {
        "As_store": "warps · BM·BK/4/threads (float4s of A per thread) = %d · %d" % (warps, a_loads),
        "Bs_store": "warps · BK·BN/4/threads (float4s of B per thread) = %d · %d" % (warps, b_loads),
        "As_load": "warps · BK · WMITER·TM/4 (a float4 each) = %d · %d · %d" % (warps, BK, WMITER * TM // 4),
        "Bs_load": "warps · BK · WNITER·TN/4 (a float4 each) = %d · %d · %d" % (warps, BK, WNITER * TN // 4),
    }
    sizes = {"As_store": WORD_BYTES, "Bs_store": 4 * WORD_BYTES, "As_load": 4 * WORD_BYTES, "Bs_load": 4 * WORD_BYTES}
    return {name: Access(sizes[name], tuple(tuple(r) for r in out[name]), per_block[name]) for name in ACCESSES}


def accesses(lab, constants, float4=False):
    """{access name: Access} for one block and one phase of lab `lab`'s reference with lab.h's `constants`
    (changed ones included), as the emulator counts them, or with float4: as 16-byte loads and a 16-byte store
    into Bs, the form nvcc gives them. ValueError for a lab without this model."""
    if lab == 5:
        return lab5_accesses(constants, float4)
    if lab == 6:
        return lab6_accesses(constants, float4)
    raise ValueError("the shared-memory requests are worked out for labs %s only, not lab %d"
                     % (" and ".join(map(str, LABS)), lab))


def pad(request):
    """A request's offsets as 32 lanes, None for the lanes a partial warp lacks."""
    return list(request) + [None] * (WARP_SIZE - len(request))


def figures(access):
    """(requests, wavefronts, ideal) of one access over one block and one phase."""
    return (len(access.requests), sum(wavefronts(pad(r), access.size) for r in access.requests),
            sum(ideal(pad(r), access.size) for r in access.requests))
