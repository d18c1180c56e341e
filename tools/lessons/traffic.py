"""`make traffic`: the calculator's numbers for one shape and tile (or a lab's block tile), laid out for reading."""
from .calculator import (A_FLOAT4_QUANTITIES, A_PAD, B_PAD, BLOCK_QUANTITIES, GPU_QUANTITIES, MIN_SPLIT_PHASES,
                         SHARED_QUANTITIES, all_phases, block_grid_x, block_grid_y, blocks, flops_launched,
                         flops_owned, format_number, grid_x, grid_y, naive_read_bytes, phases, threads,
                         tiled_read_bytes, value, written_bytes)


def report(s):
    n = format_number
    last_phase_start = (phases(s) - 1) * s.TILE
    rows = [
        ("global bytes read from A and B", None, None),
        ("  naive kernel", naive_read_bytes(s), "2·M·N·K floats"),
        ("  tiled kernel, guarded loads", tiled_read_bytes(s),
         "(M·K·ceil(N/TILE) + K·N·ceil(M/TILE)) floats: %s× fewer" % n(value("savings", s), 2)),
        ("global bytes written to C", written_bytes(s), "M·N floats, each element once"),
        ("FLOPs", None, None),
        ("  threads that own an element of C", flops_owned(s), "2·M·N·K"),
        ("  every launched thread", flops_launched(s), "2 · threads · phases · TILE, zero fill included"),
        ("arithmetic intensity, FLOPs (2·M·N·K) per byte read", None, None),
        ("  naive kernel", n(value("naive_intensity", s), 2), None),
        ("  tiled kernel", n(value("tiled_intensity", s), 2), None),
    ]
    lines = [
        "C = A·B, %s (M=%d, K=%d, N=%d), TILE=%d" % (s.name(), s.M, s.K, s.N, s.TILE),
        "grid:     %d × %d = %s blocks of %d×%d threads (x: ceil(N/TILE), y: ceil(M/TILE))"
        % (grid_x(s), grid_y(s), n(blocks(s)), s.TILE, s.TILE),
        "threads:  %s launched for %s elements of C; %s own none"
        % (n(threads(s)), n(s.M * s.N), n(threads(s) - s.M * s.N)),
        "phases:   %d = ceil(K/TILE); the last covers k = %d..%d, of which %d exist"
        % (phases(s), last_phase_start, last_phase_start + s.TILE - 1, s.K - last_phase_start),
    ]
    for label, number, note in rows:
        if number is None:
            lines.append(label)
        else:
            shown = number if isinstance(number, str) else n(number)
            lines.append(("%-40s %15s" % (label, shown)) + ("   " + note if note else ""))
    return "\n".join(lines)


def known_values(s):
    """{name: value} of the block quantities this shape has: not the GPU's without SMS and PER_SM, not the
    references' shared-memory requests or lab 6's loads of A request by request, and only those that make sense
    for its tile (per-thread loads for labs 3-6, fragments for lab 7)."""
    q = {}
    for name in BLOCK_QUANTITIES:
        if (s.sms or name not in GPU_QUANTITIES) and name not in SHARED_QUANTITIES and name not in A_FLOAT4_QUANTITIES:
            try:
                q[name] = value(name, s)
            except ValueError:
                pass
    return q


def block_report(s):
    """The same for a lab's block tile (a BlockShape): labs 4-7, or lab 3's TILE_WIDTH×TILE_WIDTH."""
    n = format_number
    t = s.tile
    q = known_values(s)
    last_phase_start = (all_phases(s) - 1) * t.BK
    flops = 2 * q["multiply_adds"]
    rows = [
        ("global bytes read from A and B", q["read_bytes"], "(M·K·ceil(N/BN) + K·N·ceil(M/BM)) floats"),
        ("global bytes written to C", written_bytes(s), "M·N floats, each element once"),
        ("shared memory per block", q["shared_bytes_per_block"],
         "%d stage%s of %s floats" % (t.stages, "s" if t.stages > 1 else "", "BM·(BK + %d) + BK·(BN + %d)" % (
             A_PAD, B_PAD) if t.tensor and not t.mma_sync else "(BM + BN)·BK")),
        ("shared bytes loaded, all threads", q["shared_load_bytes"], "(TM + TN) floats per thread and step k")
        if not t.tensor else ("shared bytes loaded by fragments", q["fragment_load_bytes"],
                              "FM ldmatrix_x4 of 512 bytes and FN B fragments of 256 per warp and step of 8"
                              if t.mma_sync else "(FM + FN) fragments of 128 floats per warp and step of 8"),
        ("FLOPs, 2·M·N·K", flops, None),
        ("arithmetic intensity, FLOPs per byte read", n(q["intensity"], 2), None),
    ]
    lines = [
        "C = A·B, %s (M=%d, K=%d, N=%d), %s: BK = %d, TM×TN = %d×%d outputs per thread"
        % (s.name(), s.M, s.K, s.N, t.describe(), t.BK, t.TM, t.TN),
        "grid:     %d × %d%s = %s blocks of %d threads (x: ceil(N/BN), y: ceil(M/BM)%s), %s launched"
        % (block_grid_x(s), block_grid_y(s), " × %d" % q["splits"] if q["splits"] > 1 else "", n(q["blocks"]),
           q["threads_per_block"], ", z: the splits of K" if q["splits"] > 1 else "",
           n(q["blocks"] * q["threads_per_block"])),
        "phases:   %d = ceil(K/BK)%s; the last covers k = %d..%d, of which %d exist"
        % (all_phases(s), ", %d per block in %d splits" % (q["phases"], q["splits"]) if q["splits"] > 1 else "",
           last_phase_start, last_phase_start + t.BK - 1, s.K - last_phase_start),
    ]
    if t.tensor:
        lines[0] = "C = A·B, %s (M=%d, K=%d, N=%d), %s: BK = %d, WM×WN = %d×%d outputs per warp" % (
            s.name(), s.M, s.K, s.N, t.describe(), t.BK, t.WM, t.WN)
        call = "mma_m16n8k8_tf32" if t.mma_sync else "mma_sync"
        if t.mma_sync:
            lines.append(
                "a warp:   %d×%d = %d %s (a thread holds %d floats of them); per phase %d ldmatrix_x4 of A, %d "
                "32-bit loads of B and %d mma_m16n8k8_tf32 of 16×8×8" % (
                    t.FM, t.FN, q["fragments_per_warp"], t.tile_name, q["accumulators"],
                    q["ldmatrix_per_warp_per_phase"], q["b_loads_per_warp_per_phase"], q["mma_per_warp_per_phase"]))
        else:
            lines.append(
                "a warp:   %d×%d = %d %s (a thread holds %d floats of them); per phase %d fragment loads "
                "(load_matrix_sync) and %d mma_sync of 16×16×8" % (
                    t.FM, t.FN, q["fragments_per_warp"], t.tile_name, q["accumulators"],
                    q["fragment_loads_per_warp_per_phase"], q["mma_per_warp_per_phase"]))
        lines.append("launch:   %s %s × %s FLOPs = %s tensor-core FLOPs, of which the product's 2·M·N·K are %s %%" % (
            n(q["mma_calls"]), call, n(q["flops_per_mma"]), n(q["mma_flops"]), n(q["mma_useful_percent"], 1)))
    else:
        lines.append(
            "a thread: %d output%s in registers; per step k %d shared loads for %d multiply-add%s, %s per multiply-add"
            % (q["accumulators"], "s" if q["accumulators"] > 1 else "", q["shared_loads_per_step"], q["fmas_per_step"],
               "s" if q["fmas_per_step"] > 1 else "", ("%.3f" % q["shared_loads_per_fma"]).rstrip("0").rstrip(".")))
    if q["splits"] > 1:
        rows[2:2] = [("split-K workspace", q["workspace_bytes"], "splits · M·N floats of partial sums"),
                     ("split-K extra global bytes", q["split_extra_bytes"],
                      "the partials written, then read by the sum: %s %% more than unsplit"
                      % n(q["split_extra_percent"], 1))]
    for label, number, note in rows:
        shown = number if isinstance(number, str) else n(number)
        lines.append(("%-42s %15s" % (label, shown)) + ("   " + note if note else ""))
    if s.sms:
        lines += [
            "waves:    %s blocks on %d multiprocessors × %d = %d slots: %s waves, %d multiprocessor%s busy"
            % (n(q["blocks"]), s.sms, s.per_sm, q["slots"], n(q["waves"], 2), q["busy_sms"],
               "s" if q["busy_sms"] > 1 else ""),
            "split-K:  %d split%s would fill the slots (at least %d phases each; SPLIT= sets the split)"
            % (q["split_for_slots"], "s" if q["split_for_slots"] > 1 else "", MIN_SPLIT_PHASES)]
    return "\n".join(lines)
