;; Four kernels, each bit-identical to the JS it replaces:
;;  - "log": Math.log over float64, in place (see $log near the end of this file);
;;  - "bins": equal-width bin statistics of float64 confidences (the top-1 probabilities q of
;;    the rows), as accumulateBins in src/math/binning.ts (see "bins" at the end of this file);
;;  - "binary": s, q and the correctness of a binary classifier's logits [n] (the rows [0, z] of
;;    SPEC §11), as binaryStats in src/math/sigmoid.ts (see "binary" below);
;;  - "rows": row-wise softmax sums over float32 logits [n, k] (row-major), in float64, as the
;; JS loop of src/math/softmax.ts:
;;   top = first argmax (JS: m = z_0; `if (z > m) { m = z; top = j }`),  m = z_top,
;;   e_j = expNonPositive(z_j - m) for j != top, e_top = 0,  s = orderFreeSum(e, 0, k) (any order, same bits),
;; and optionally its second pass (entropy and Brier score), with e_top = 1 and label y:
;;   weighted = sum_j e_j * (m - z_j),  sq = sum_{j != y} e_j * e_j  (each sequential, j ascending).
;;
;; exp is src/math/exp.ts's expNonPositive in f64x2 lanes ($expLanes, $expFast below), a table
;; method within 1 ulp of the true exp; it needs the table the loader writes at bytes 0 .. 4095.
;; A row takes the fast path when no x = z_j - m can be below -704 (m - min z <= 704), where
;; expNonPositive is a single form; other rows (and NaN or infinite m or min) the slow path, which
;; also has the form for results below 2^-1016 (subnormal ones rounded once) and x < -746 -> +0.
;;
;; ensembleKernel.wat imports $argmax ("a"), $rowMin ("g") and $ofsum ("o") with this memory (short
;; export names: this module's size is kept below 5 KiB).
;;
;; Regenerate the embedded bytes with `node scripts/build-wasm.mjs`.
(module
  (memory (export "memory") 1)

  ;; min over the non-NaN z of the last $argmax row (-inf when not computed: forces the slow path)
  (global $rowMin (export "g") (mut f64) (f64.const 0))

  ;; 1 when the last $argmax row holds a NaN or an infinity (the readers' finiteness check)
  (global $rowBad (mut i32) (i32.const 0))
  ;; how many rows of the last "rows" or "tops" call have the label at the argmax (with $outC)
  (global $nCorrect (export "nCorrect") (mut i32) (i32.const 0))
  ;; 1 when every value of the last $argmax row lies in [0, 1] (no NaN): the row may be probabilities
  (global $rowUnit (mut i32) (i32.const 0))
  ;; how many rows of the last "rows" or "tops" call lie in [0, 1] (SPEC §4's probabilities screen)
  (global $unitRows (export "unitRows") (mut i32) (i32.const 0))

  ;; With $outC != 0: [label of row $r = $top] -> u8 at $outC + $r, counted in $nCorrect.
  (func $correct (param $labels i32) (param $outC i32) (param $r i32) (param $top i32)
    (local $c i32)
    (if (local.get $outC)
      (then
        (local.set $c (i32.eq (local.get $top)
          (i32.load (i32.add (local.get $labels) (i32.shl (local.get $r) (i32.const 2))))))
        (i32.store8 (i32.add (local.get $outC) (local.get $r)) (local.get $c))
        (global.set $nCorrect (i32.add (global.get $nCorrect) (local.get $c))))))

  ;; First argmax of the float32 row at $p (k >= 1), with exactly the JS loop's semantics: a NaN
  ;; z_0 makes m NaN (never replaced), other NaNs are skipped, ties go to the first index. Sets
  ;; $rowBad for the same scan: NaN lanes by z != z, infinities by the row's max and min; $rowUnit
  ;; whether every value lies in [0, 1].
  (func $argmax (export "a") (param $p i32) (param $k i32) (result i32)
    (local $j i32) (local $top i32) (local $end i32) (local $bm i32) (local $bad i32) (local $unit i32)
    (local $mf f32) (local $z f32) (local $lf f32)
    (local $a0 v128) (local $a1 v128) (local $b0 v128) (local $b1 v128) (local $v v128) (local $nan v128)
    (global.set $rowMin (f64.const -inf))
    (local.set $mf (f32.load (local.get $p)))
    (if (i32.or (i32.lt_u (local.get $k) (i32.const 8)) (f32.ne (local.get $mf) (local.get $mf)))
      (then
        ;; the JS loop verbatim; z - z is NaN (not 0) exactly for NaN and +-inf
        (local.set $bad (f32.ne (f32.sub (local.get $mf) (local.get $mf)) (f32.const 0)))
        (local.set $unit (i32.and (f32.ge (local.get $mf) (f32.const 0)) (f32.le (local.get $mf) (f32.const 1))))
        (local.set $j (i32.const 1))
        (block $done
          (loop $scan
            (br_if $done (i32.ge_u (local.get $j) (local.get $k)))
            (local.set $z (f32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $bad (i32.or (local.get $bad) (f32.ne (f32.sub (local.get $z) (local.get $z)) (f32.const 0))))
            (local.set $unit (i32.and (local.get $unit)
              (i32.and (f32.ge (local.get $z) (f32.const 0)) (f32.le (local.get $z) (f32.const 1)))))
            (if (f32.gt (local.get $z) (local.get $mf))
              (then (local.set $mf (local.get $z)) (local.set $top (local.get $j))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $scan)))
        (global.set $rowBad (local.get $bad))
        (global.set $rowUnit (local.get $unit))
        (return (local.get $top))))
    ;; z_0 is not NaN: the JS result is the first index holding the maximum of the non-NaN values.
    ;; pmax(a, b) = a < b ? b : a and pmin(a, b) = b < a ? b : a keep the accumulator for NaN b.
    (local.set $a0 (v128.const f32x4 -inf -inf -inf -inf))
    (local.set $a1 (local.get $a0))
    (local.set $b0 (v128.const f32x4 inf inf inf inf))
    (local.set $b1 (local.get $b0))
    (local.set $end (i32.and (local.get $k) (i32.const -8)))
    (loop $max8
      (local.set $v (v128.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))
      (local.set $a0 (f32x4.pmax (local.get $a0) (local.get $v)))
      (local.set $b0 (f32x4.pmin (local.get $b0) (local.get $v)))
      (local.set $nan (v128.or (local.get $nan) (f32x4.ne (local.get $v) (local.get $v))))
      (local.set $v (v128.load offset=16 (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))
      (local.set $a1 (f32x4.pmax (local.get $a1) (local.get $v)))
      (local.set $b1 (f32x4.pmin (local.get $b1) (local.get $v)))
      (local.set $nan (v128.or (local.get $nan) (f32x4.ne (local.get $v) (local.get $v))))
      (local.set $j (i32.add (local.get $j) (i32.const 8)))
      (br_if $max8 (i32.lt_u (local.get $j) (local.get $end))))
    ;; the last k mod 8 values: the row's last 8 again (max, min and the NaN test do not mind
    ;; values seen twice), no scalar loop
    (if (i32.lt_u (local.get $j) (local.get $k))
      (then
        (local.set $j (i32.add (local.get $p) (i32.shl (i32.sub (local.get $k) (i32.const 8)) (i32.const 2))))
        (local.set $v (v128.load (local.get $j)))
        (local.set $a0 (f32x4.pmax (local.get $a0) (local.get $v)))
        (local.set $b0 (f32x4.pmin (local.get $b0) (local.get $v)))
        (local.set $nan (v128.or (local.get $nan) (f32x4.ne (local.get $v) (local.get $v))))
        (local.set $v (v128.load offset=16 (local.get $j)))
        (local.set $a1 (f32x4.pmax (local.get $a1) (local.get $v)))
        (local.set $b1 (f32x4.pmin (local.get $b1) (local.get $v)))
        (local.set $nan (v128.or (local.get $nan) (f32x4.ne (local.get $v) (local.get $v))))))
    (local.set $a0 (f32x4.pmax (local.get $a0) (local.get $a1)))
    (local.set $b0 (f32x4.pmin (local.get $b0) (local.get $b1)))
    ;; every lane to the max (min) of all: swap halves, then neighbours
    (local.set $a0 (f32x4.pmax (local.get $a0) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $a0) (local.get $a0))))
    (local.set $b0 (f32x4.pmin (local.get $b0) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $b0) (local.get $b0))))
    (local.set $a0 (f32x4.pmax (local.get $a0) (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $a0) (local.get $a0))))
    (local.set $b0 (f32x4.pmin (local.get $b0) (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $b0) (local.get $b0))))
    (local.set $mf (f32x4.extract_lane 0 (local.get $a0)))
    (local.set $lf (f32x4.extract_lane 0 (local.get $b0)))
    (global.set $rowMin (f64.promote_f32 (local.get $lf)))
    (global.set $rowBad (i32.or (i32.or (local.get $bad) (v128.any_true (local.get $nan)))
      (i32.or (f32.eq (local.get $mf) (f32.const inf)) (f32.eq (local.get $lf) (f32.const -inf)))))
    (global.set $rowUnit (i32.and (i32.eqz (v128.any_true (local.get $nan)))
      (i32.and (f32.ge (local.get $lf) (f32.const 0)) (f32.le (local.get $mf) (f32.const 1)))))
    ;; first index equal to the maximum (it exists: z_0 is not NaN), 16 lanes per step; lanes read
    ;; past the row can only set bits above the first in-row match
    (local.set $v (local.get $a0))
    (local.set $j (i32.const 0))
    (loop $find
      (local.set $bm (i32.or
        (i32.or
          (i32x4.bitmask (f32x4.eq (local.get $v) (v128.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2))))))
          (i32.shl (i32x4.bitmask (f32x4.eq (local.get $v) (v128.load offset=16 (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))) (i32.const 4)))
        (i32.or
          (i32.shl (i32x4.bitmask (f32x4.eq (local.get $v) (v128.load offset=32 (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))) (i32.const 8))
          (i32.shl (i32x4.bitmask (f32x4.eq (local.get $v) (v128.load offset=48 (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))) (i32.const 12)))))
      (if (local.get $bm) (then (return (i32.add (local.get $j) (i32.ctz (local.get $bm))))))
      (local.set $j (i32.add (local.get $j) (i32.const 16)))
      (br_if $find (i32.lt_u (local.get $j) (local.get $k))))
    (i32.const 0))

  ;; ---------------------------------------------------------------------------------------------
  ;; exp(x) for x = z_j - m <= 0 (-inf, NaN), the lanes of src/math/exp.ts's expNonPositive: the
  ;; same constants, table and operation order (no FMA here, none in JS), hence the same bits.
  ;; N = 256: k = round(x*N/ln2) by the 1.5*2^52 shifter (k in the low bits of kb), i = k mod N,
  ;; r = (x + k*(-hi)) + k*(-lo), tmp = ((T_i + r) + r2*(C2 + r*C3)) + (r2*r2)*C4 (r2 = r*r),
  ;; scale = H_i*2^(k div N), exp = scale + scale*tmp; below x = -704 the subnormal-safe form of
  ;; expNonPositive (see there). No division.
  ;; The table sits at bytes 0 .. 4095 of the memory, written by the loader (softmaxKernel.ts) from
  ;; exp.ts: entry i (16 bytes) = T_i, then the bits of H_i minus i << 44, so that adding k << 44
  ;; (kb's low 20 bits, shifted) adds k div N to the exponent and cancels the i. A v128.load of an
  ;; entry per lane: no gather in this instruction set. The index is computed in scalar registers,
  ;; which keeps the vector units for the arithmetic.
  ;; Constants in mutable globals: a global is one load in the loop, a v128.const several
  ;; instructions; $expFast copies them into locals first, which its loop keeps in registers
  ;; (measured 5 % faster than a load per use).
  (global $eINV (mut v128) (v128.const i64x2 0x40771547652b82fe 0x40771547652b82fe))   ;; N/ln2
  (global $eSHIFT (mut v128) (v128.const i64x2 0x4338000000000000 0x4338000000000000)) ;; 1.5*2^52
  (global $eNEGHI (mut v128) (v128.const i64x2 0xbf662e42ff000000 0xbf662e42ff000000)) ;; -hi (ln2/N to 29 bits)
  (global $eNEGLO (mut v128) (v128.const i64x2 0x3d4718432a1b0e26 0x3d4718432a1b0e26)) ;; -lo = hi - ln2/N
  (global $eC2 (mut v128) (v128.const i64x2 0x3fdfffffffffffd4 0x3fdfffffffffffd4))
  (global $eC3 (mut v128) (v128.const i64x2 0x3fc5555571da470f 0x3fc5555571da470f))
  (global $eC4 (mut v128) (v128.const i64x2 0x3fa55555769d2886 0x3fa55555769d2886))
  (global $eLOW (mut v128) (v128.const f64x2 -704 -704))     ;; below: the 2^1022-scaled form
  (global $eFLOOR (mut v128) (v128.const f64x2 -746 -746))   ;; below: +0 (as exp(-746))
  (global $eONE (mut v128) (v128.const f64x2 1 1))
  (global $eB1022 (mut v128) (v128.const i64x2 0x3fe0000000000000 0x3fe0000000000000)) ;; 1022 << 52
  (global $eTWOM1022 (mut v128) (v128.const f64x2 0x1p-1022 0x1p-1022))

  ;; e_j = exp(z_j - m) for the k float32 at $p into the float64 at $e, two per step (reads up to 4
  ;; bytes past the row, writes up to 1 float64 past e_(k-1)). Any row (slow path): a pair with
  ;; both x >= -704 takes the first form inline, as $expFast; other pairs (a lane below, -inf, NaN)
  ;; go through $expLanes.
  (func $expSlow (export "expSlow") (param $p i32) (param $k i32) (param $e i32) (param $m f64)
    (local $end i32) (local $M v128) (local $x v128) (local $kb v128) (local $kd v128) (local $r v128)
    (local $t0 v128) (local $t1 v128) (local $sc v128) (local $r2 v128)
    (local.set $M (f64x2.splat (local.get $m)))
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $k) (i32.const 2))))
    (loop $step
      (local.set $x (f64x2.sub (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $p))) (local.get $M)))
      (if (i64x2.all_true (f64x2.ge (local.get $x) (global.get $eLOW)))
        (then
          (local.set $kb (f64x2.add (f64x2.mul (local.get $x) (global.get $eINV)) (global.get $eSHIFT)))
          (local.set $kd (f64x2.sub (local.get $kb) (global.get $eSHIFT)))
          (local.set $r (f64x2.add (f64x2.add (local.get $x) (f64x2.mul (local.get $kd) (global.get $eNEGHI)))
                                   (f64x2.mul (local.get $kd) (global.get $eNEGLO))))
          (local.set $t0 (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $kb))) (i32.const 255)) (i32.const 4))))
          (local.set $t1 (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $kb))) (i32.const 255)) (i32.const 4))))
          (local.set $sc (i64x2.add (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1))
                                    (i64x2.shl (local.get $kb) (i32.const 44))))
          (local.set $r2 (f64x2.mul (local.get $r) (local.get $r)))
          (v128.store (local.get $e) (f64x2.add (local.get $sc) (f64x2.mul (local.get $sc) (f64x2.add
            (f64x2.add (f64x2.add (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1)) (local.get $r))
                       (f64x2.mul (local.get $r2) (f64x2.add (global.get $eC2) (f64x2.mul (local.get $r) (global.get $eC3)))))
            (f64x2.mul (f64x2.mul (local.get $r2) (local.get $r2)) (global.get $eC4)))))))
        (else (v128.store (local.get $e) (call $expLanes (local.get $x)))))
      (local.set $e (i32.add (local.get $e) (i32.const 16)))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $step (i32.lt_u (local.get $p) (local.get $end)))))

  ;; expNonPositive of both lanes of $x, any x <= 0, -inf or NaN.
  (func $expLanes (param $x v128) (result v128)
    (local $kb v128) (local $kd v128) (local $r v128) (local $t0 v128) (local $t1 v128)
    (local $sc v128) (local $r2 v128) (local $tmp v128) (local $yf v128) (local $y v128)
    (local $lo v128) (local $hi v128)
    ;; x < -746 (-inf too) -> -746 (pmax keeps a NaN x)
    (local.set $x (f64x2.pmax (local.get $x) (global.get $eFLOOR)))
    (local.set $kb (f64x2.add (f64x2.mul (local.get $x) (global.get $eINV)) (global.get $eSHIFT)))
    (local.set $kd (f64x2.sub (local.get $kb) (global.get $eSHIFT)))
    (local.set $r (f64x2.add (f64x2.add (local.get $x) (f64x2.mul (local.get $kd) (global.get $eNEGHI)))
                             (f64x2.mul (local.get $kd) (global.get $eNEGLO))))
    (local.set $t0 (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $kb))) (i32.const 255)) (i32.const 4))))
    (local.set $t1 (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $kb))) (i32.const 255)) (i32.const 4))))
    (local.set $sc (i64x2.add (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1))
                              (i64x2.shl (local.get $kb) (i32.const 44))))
    (local.set $r2 (f64x2.mul (local.get $r) (local.get $r)))
    (local.set $tmp (f64x2.add
      (f64x2.add (f64x2.add (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1)) (local.get $r))
                 (f64x2.mul (local.get $r2) (f64x2.add (global.get $eC2) (f64x2.mul (local.get $r) (global.get $eC3)))))
      (f64x2.mul (f64x2.mul (local.get $r2) (local.get $r2)) (global.get $eC4))))
    ;; x >= -704: scale + scale*tmp (a lane below has a meaningless scale here: not selected)
    (local.set $yf (f64x2.add (local.get $sc) (f64x2.mul (local.get $sc) (local.get $tmp))))
    ;; below: with the scale 2^1022 larger (exact: i64 adds wrap), y = sc + sc*tmp; if y < 1,
    ;; lo = (sc - y) + sc*tmp, hi = 1 + y, lo = ((1 - hi) + y) + lo, y = (hi + lo) - 1; y*2^-1022
    (local.set $sc (i64x2.add (local.get $sc) (global.get $eB1022)))
    (local.set $y (f64x2.add (local.get $sc) (f64x2.mul (local.get $sc) (local.get $tmp))))
    (local.set $lo (f64x2.add (f64x2.sub (local.get $sc) (local.get $y)) (f64x2.mul (local.get $sc) (local.get $tmp))))
    (local.set $hi (f64x2.add (global.get $eONE) (local.get $y)))
    (local.set $lo (f64x2.add (f64x2.add (f64x2.sub (global.get $eONE) (local.get $hi)) (local.get $y)) (local.get $lo)))
    (local.set $y (v128.bitselect
      (f64x2.sub (f64x2.add (local.get $hi) (local.get $lo)) (global.get $eONE))
      (local.get $y)
      (f64x2.lt (local.get $y) (global.get $eONE))))
    (local.set $y (f64x2.mul (local.get $y) (global.get $eTWOM1022)))
    (v128.bitselect (local.get $yf) (local.get $y) (f64x2.ge (local.get $x) (global.get $eLOW))))

  ;; As $expSlow, for rows where every x is >= -704 or NaN: the first form only, software-
  ;; pipelined (each step reduces the next pair and loads its table entries while it finishes the
  ;; polynomial of the current one, which keeps more independent work in flight). Reads up to 12
  ;; bytes past the row (the pair after the last, whose result is never stored), writes up to 1
  ;; float64 past e_(k-1).
  (func $expFast (export "expFast") (param $p i32) (param $k i32) (param $e i32) (param $m f64)
    (local $end i32) (local $M v128) (local $r2 v128)
    (local $x v128) (local $kb v128) (local $kd v128) (local $r v128) (local $t0 v128) (local $t1 v128) (local $sc v128)
    (local $xN v128) (local $kbN v128) (local $kdN v128) (local $rN v128) (local $t0N v128) (local $t1N v128) (local $scN v128)
    (local $leINV v128) (local $leSHIFT v128) (local $leNEGHI v128) (local $leNEGLO v128) (local $leC2 v128) (local $leC3 v128) (local $leC4 v128)
    (local.set $leINV (global.get $eINV))
    (local.set $leSHIFT (global.get $eSHIFT))
    (local.set $leNEGHI (global.get $eNEGHI))
    (local.set $leNEGLO (global.get $eNEGLO))
    (local.set $leC2 (global.get $eC2))
    (local.set $leC3 (global.get $eC3))
    (local.set $leC4 (global.get $eC4))
    (local.set $M (f64x2.splat (local.get $m)))
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $k) (i32.const 2))))
    (local.set $x (f64x2.sub (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $p))) (local.get $M)))
    (local.set $kb (f64x2.add (f64x2.mul (local.get $x) (local.get $leINV)) (local.get $leSHIFT)))
    (local.set $kd (f64x2.sub (local.get $kb) (local.get $leSHIFT)))
    (local.set $r (f64x2.add (f64x2.add (local.get $x) (f64x2.mul (local.get $kd) (local.get $leNEGHI)))
                             (f64x2.mul (local.get $kd) (local.get $leNEGLO))))
    (local.set $t0 (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $kb))) (i32.const 255)) (i32.const 4))))
    (local.set $t1 (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $kb))) (i32.const 255)) (i32.const 4))))
    (local.set $sc (i64x2.add (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1))
                              (i64x2.shl (local.get $kb) (i32.const 44))))
    (loop $step
      (local.set $xN (f64x2.sub (f64x2.promote_low_f32x4 (v128.load64_zero offset=8 (local.get $p))) (local.get $M)))
      (local.set $kbN (f64x2.add (f64x2.mul (local.get $xN) (local.get $leINV)) (local.get $leSHIFT)))
      (local.set $kdN (f64x2.sub (local.get $kbN) (local.get $leSHIFT)))
      (local.set $rN (f64x2.add (f64x2.add (local.get $xN) (f64x2.mul (local.get $kdN) (local.get $leNEGHI)))
                               (f64x2.mul (local.get $kdN) (local.get $leNEGLO))))
      (local.set $t0N (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $kbN))) (i32.const 255)) (i32.const 4))))
      (local.set $t1N (v128.load (i32.shl (i32.and (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $kbN))) (i32.const 255)) (i32.const 4))))
      (local.set $scN (i64x2.add (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0N) (local.get $t1N))
                                (i64x2.shl (local.get $kbN) (i32.const 44))))
      (local.set $r2 (f64x2.mul (local.get $r) (local.get $r)))
      (v128.store (local.get $e) (f64x2.add (local.get $sc) (f64x2.mul (local.get $sc) (f64x2.add
        (f64x2.add (f64x2.add (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1)) (local.get $r))
                   (f64x2.mul (local.get $r2) (f64x2.add (local.get $leC2) (f64x2.mul (local.get $r) (local.get $leC3)))))
        (f64x2.mul (f64x2.mul (local.get $r2) (local.get $r2)) (local.get $leC4))))))
      (local.set $r (local.get $rN))
      (local.set $t0 (local.get $t0N))
      (local.set $t1 (local.get $t1N))
      (local.set $sc (local.get $scN))
      (local.set $e (i32.add (local.get $e) (i32.const 16)))
      (local.set $p (i32.add (local.get $p) (i32.const 8)))
      (br_if $step (i32.lt_u (local.get $p) (local.get $end)))))

  ;; The plain sequential sum of $n float64 at $a.
  (func $plainSum (param $a i32) (param $n i32) (result f64)
    (local $end i32) (local $res f64)
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $res (f64.add (local.get $res) (f64.load (local.get $a))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (br $l)))
    (local.get $res))

  ;; The JS orderFreeSum (../softmax.ts) of $n >= 1 non-negative float64 at $a; writes 0 to the
  ;; float64 after them. With mx the largest, 2^(E-1) <= mx < 2^E, n <= 2^B and
  ;; p = 53 - B - E, each x = a*2^p (exact, x < 2^(53-B)) adds hi = floor(x) to H and
  ;; floor((x - hi)*2^(53-B)) to L: integers whose sums stay below 2^53, so exact in any order and
  ;; lanes, hence the JS bits. s = (H + L*2^-(53-B))*2^-p; an infinity or NaN among the values:
  ;; their plain sum. 2^q (q = -1022 .. 1023) is built from its bits, (q + 1023) << 52.
  (func $ofsum (export "o") (param $a i32) (param $n i32) (result f64)
    (local $i i32) (local $end i32) (local $end4 i32) (local $b i32) (local $p i32) (local $q i32)
    (local $r f64) (local $hs f64) (local $ls f64) (local $cs f64) (local $s2 f64)
    (local $m0 v128) (local $m1 v128) (local $s v128) (local $c v128)
    (local $x0 v128) (local $x1 v128) (local $f0 v128) (local $f1 v128)
    (local $h0 v128) (local $h1 v128) (local $l0 v128) (local $l1 v128)
    ;; a zero after the values, which whole vectors of an odd count read
    (f64.store (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))) (f64.const 0))
    ;; vectors: pairs up to $end4, then one more up to $end
    (local.set $end (i32.add (local.get $a) (i32.shl (i32.and (i32.add (local.get $n) (i32.const 1)) (i32.const -2)) (i32.const 3))))
    (local.set $end4 (i32.add (local.get $a) (i32.shl (i32.and (i32.add (local.get $n) (i32.const 1)) (i32.const -4)) (i32.const 3))))
    ;; E needs only the largest exponent field: the largest high word without its sign (-0 is 0, a
    ;; NaN of either sign is above infinity), as the JS finds it
    (local.set $s (v128.const i32x4 0 0x7fffffff 0 0x7fffffff))
    (local.set $i (local.get $a))
    (block $d
      (loop $l
        (br_if $d (i32.ge_u (local.get $i) (local.get $end4)))
        (local.set $m0 (i32x4.max_s (local.get $m0) (v128.and (v128.load (local.get $i)) (local.get $s))))
        (local.set $m1 (i32x4.max_s (local.get $m1) (v128.and (v128.load offset=16 (local.get $i)) (local.get $s))))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $l)))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then (local.set $m0 (i32x4.max_s (local.get $m0) (v128.and (v128.load (local.get $i)) (local.get $s))))))
    (local.set $m0 (i32x4.max_s (local.get $m0) (local.get $m1)))
    (local.set $p (i32x4.extract_lane 1 (local.get $m0)))
    (local.set $q (i32x4.extract_lane 3 (local.get $m0)))
    (local.set $p (select (local.get $q) (local.get $p) (i32.lt_s (local.get $p) (local.get $q))))
    ;; an infinity or NaN
    (if (i32.ge_u (local.get $p) (i32.const 0x7ff00000))
      (then (return (call $plainSum (local.get $a) (local.get $n)))))
    ;; E = exponent field - 1022 (-1022 for a subnormal mx too); B = ceil(log2 n); p = 53 - B - E
    (local.set $p (i32.shr_u (local.get $p) (i32.const 20)))
    (local.set $b (i32.sub (i32.const 32) (i32.clz (i32.sub (local.get $n) (i32.const 1)))))
    (local.set $p (i32.sub (i32.sub (i32.const 1075) (local.get $b)) (local.get $p)))
    (local.set $cs (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.sub (i32.const 1076) (local.get $b))) (i64.const 52))))
    (if (i32.le_s (local.get $p) (i32.const 1023))
      (then
        (local.set $s (f64x2.splat (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.add (local.get $p) (i32.const 1023))) (i64.const 52)))))
        (local.set $c (f64x2.splat (local.get $cs)))
        (local.set $i (local.get $a))
        (block $d
          (loop $l
            (br_if $d (i32.ge_u (local.get $i) (local.get $end4)))
            (local.set $x0 (f64x2.mul (v128.load (local.get $i)) (local.get $s)))
            (local.set $x1 (f64x2.mul (v128.load offset=16 (local.get $i)) (local.get $s)))
            (local.set $f0 (f64x2.floor (local.get $x0)))
            (local.set $f1 (f64x2.floor (local.get $x1)))
            (local.set $h0 (f64x2.add (local.get $h0) (local.get $f0)))
            (local.set $h1 (f64x2.add (local.get $h1) (local.get $f1)))
            (local.set $l0 (f64x2.add (local.get $l0)
              (f64x2.floor (f64x2.mul (f64x2.sub (local.get $x0) (local.get $f0)) (local.get $c)))))
            (local.set $l1 (f64x2.add (local.get $l1)
              (f64x2.floor (f64x2.mul (f64x2.sub (local.get $x1) (local.get $f1)) (local.get $c)))))
            (local.set $i (i32.add (local.get $i) (i32.const 32)))
            (br $l)))
        (if (i32.lt_u (local.get $i) (local.get $end))
          (then
            (local.set $x0 (f64x2.mul (v128.load (local.get $i)) (local.get $s)))
            (local.set $f0 (f64x2.floor (local.get $x0)))
            (local.set $h0 (f64x2.add (local.get $h0) (local.get $f0)))
            (local.set $l0 (f64x2.add (local.get $l0)
              (f64x2.floor (f64x2.mul (f64x2.sub (local.get $x0) (local.get $f0)) (local.get $c)))))))
        (local.set $h0 (f64x2.add (local.get $h0) (local.get $h1)))
        (local.set $l0 (f64x2.add (local.get $l0) (local.get $l1)))
        (local.set $hs (f64.add (f64x2.extract_lane 0 (local.get $h0)) (f64x2.extract_lane 1 (local.get $h0))))
        (local.set $ls (f64.add (f64x2.extract_lane 0 (local.get $l0)) (f64x2.extract_lane 1 (local.get $l0)))))
      (else
        ;; 2^p above 2^1023 (mx below about 2^-970): 2^1023 * 2^(p-1023), one value at a time
        (local.set $s2 (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (local.get $p)) (i64.const 52))))
        (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
        (local.set $i (local.get $a))
        (loop $l
          (local.set $r (f64.mul (f64.mul (f64.load (local.get $i)) (f64.const 0x1p1023)) (local.get $s2)))
          (local.set $hs (f64.add (local.get $hs) (f64.floor (local.get $r))))
          (local.set $ls (f64.add (local.get $ls)
            (f64.floor (f64.mul (f64.sub (local.get $r) (f64.floor (local.get $r))) (local.get $cs)))))
          (local.set $i (i32.add (local.get $i) (i32.const 8)))
          (br_if $l (i32.lt_u (local.get $i) (local.get $end))))))
    ;; y = H + L*2^-(53-B), one rounding
    (local.set $r (f64.add (local.get $hs) (f64.mul (local.get $ls)
      (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.add (local.get $b) (i32.const 970))) (i64.const 52))))))
    ;; y*2^-p, as (y*2^(1022-p))*2^-1022 (exact, then the one rounding) when p > 1022
    (local.set $q (select (i32.const -1022) (i32.const 0) (i32.gt_s (local.get $p) (i32.const 1022))))
    (local.set $r (f64.mul
      (f64.mul (local.get $r)
        (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.sub (i32.sub (i32.const 1023) (local.get $p)) (local.get $q))) (i64.const 52))))
      (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.add (local.get $q) (i32.const 1023))) (i64.const 52)))))
    (local.get $r))

  ;; For each of $n rows of $k float32 at $in: top -> i32 at $outTop, m -> f64 at $outM,
  ;; s -> f64 at $outS. $e is scratch for k + 4 float64; the input must be readable 64 bytes past
  ;; its end ($argmax's search reads up to 60, $expSlow/$expFast up to 12).
  ;; With $outW != 0 also the JS loop's second pass, with e_top = 1 (stored over e's 0 once s is
  ;; summed) and y = the i32 at $labels (-1 if $labels is 0): two float64 sums over j = 0 .. k-1
  ;; in order, one accumulator each, exactly as in JS (no reassociation, no lanes):
  ;;   weighted += e_j * (m - z_j) -> f64 at $outW,   sq += e_j * e_j for j != y -> f64 at $outQ.
  ;; The loop over j has no per-element test: j < min(y, k) adds to both sums, j = y (if
  ;; 0 <= y < k) to weighted only, j > y to both. (Two rows at a time in f64x2 lanes, which keeps
  ;; each row's order, measured no faster: the loop is throughput-bound, not latency-bound.)
  ;; With $check != 0, a row holding a NaN or an infinity stops the loop before any of its
  ;; results: the index of that row is returned, else $n. With $outC != 0 (and $labels), also
  ;; [y = top] -> u8 at $outC, their count in $nCorrect; with $outP != 0, 1/(1+s) -> f64 at $outP
  ;; (the top-1 probability, as JS computes it).
  (func (export "rows") (param $in i32) (param $n i32) (param $k i32) (param $e i32)
                        (param $outS i32) (param $outM i32) (param $outTop i32)
                        (param $labels i32) (param $outW i32) (param $outQ i32) (param $check i32)
                        (param $outC i32) (param $outP i32)
                        (result i32)
    (local $r i32) (local $p i32) (local $top i32) (local $m f64)
    (local $j i32) (local $y i32) (local $end i32) (local $ej f64) (local $w f64) (local $q f64)
    (global.set $nCorrect (i32.const 0))
    (global.set $unitRows (i32.const 0))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $n)))
        (local.set $p (i32.add (local.get $in) (i32.mul (local.get $r) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $top (call $argmax (local.get $p) (local.get $k)))
        (if (i32.and (local.get $check) (global.get $rowBad)) (then (return (local.get $r))))
        (global.set $unitRows (i32.add (global.get $unitRows) (global.get $rowUnit)))
        (local.set $m (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.shl (local.get $top) (i32.const 2))))))
        ;; fast iff m - min z <= 704: every x >= -704 (false for NaN/inf m or min)
        (if (f64.le (f64.sub (local.get $m) (global.get $rowMin)) (f64.const 704))
          (then (call $expFast (local.get $p) (local.get $k) (local.get $e) (local.get $m)))
          (else (call $expSlow (local.get $p) (local.get $k) (local.get $e) (local.get $m))))
        (f64.store (i32.add (local.get $e) (i32.shl (local.get $top) (i32.const 3))) (f64.const 0))
        (f64.store (i32.add (local.get $outS) (i32.shl (local.get $r) (i32.const 3)))
          (call $ofsum (local.get $e) (local.get $k)))
        (f64.store (i32.add (local.get $outM) (i32.shl (local.get $r) (i32.const 3))) (local.get $m))
        (i32.store (i32.add (local.get $outTop) (i32.shl (local.get $r) (i32.const 2))) (local.get $top))
        (call $correct (local.get $labels) (local.get $outC) (local.get $r) (local.get $top))
        (if (local.get $outP)
          (then
            (f64.store (i32.add (local.get $outP) (i32.shl (local.get $r) (i32.const 3)))
              (f64.div (f64.const 1) (f64.add (f64.const 1)
                (f64.load (i32.add (local.get $outS) (i32.shl (local.get $r) (i32.const 3)))))))))
        (if (local.get $outW)
          (then
            (f64.store (i32.add (local.get $e) (i32.shl (local.get $top) (i32.const 3))) (f64.const 1))
            (local.set $y (i32.const -1))
            (if (local.get $labels)
              (then (local.set $y (i32.load (i32.add (local.get $labels) (i32.shl (local.get $r) (i32.const 2)))))))
            (local.set $w (f64.const 0))
            (local.set $q (f64.const 0))
            (local.set $j (i32.const 0))
            ;; j < $end: both sums; then j = y (if 0 <= y < k): weighted only; then $end = k
            (local.set $end (select (local.get $y) (local.get $k) (i32.lt_u (local.get $y) (local.get $k))))
            (loop $pass2
              (block $seg
                (loop $both
                  (br_if $seg (i32.ge_u (local.get $j) (local.get $end)))
                  (local.set $ej (f64.load (i32.add (local.get $e) (i32.shl (local.get $j) (i32.const 3)))))
                  (local.set $w (f64.add (local.get $w) (f64.mul (local.get $ej)
                    (f64.sub (local.get $m) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))))))
                  (local.set $q (f64.add (local.get $q) (f64.mul (local.get $ej) (local.get $ej))))
                  (local.set $j (i32.add (local.get $j) (i32.const 1)))
                  (br $both)))
              (if (i32.lt_u (local.get $j) (local.get $k))
                (then
                  ;; j = y
                  (local.set $w (f64.add (local.get $w) (f64.mul
                    (f64.load (i32.add (local.get $e) (i32.shl (local.get $j) (i32.const 3))))
                    (f64.sub (local.get $m) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))))))))
                  (local.set $j (i32.add (local.get $j) (i32.const 1)))
                  (local.set $end (local.get $k))
                  (br $pass2))))
            (f64.store (i32.add (local.get $outW) (i32.shl (local.get $r) (i32.const 3))) (local.get $w))
            (f64.store (i32.add (local.get $outQ) (i32.shl (local.get $r) (i32.const 3))) (local.get $q))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (local.get $n))

  ;; The first argmax of each of $n rows of $k float32 at $in -> i32 at $outTop (no exp: what the
  ;; top-1 error needs), with the check of "rows" ($check != 0: the index of the first row holding
  ;; a NaN or an infinity is returned, else $n). The input must be readable 64 bytes past its end.
  (func (export "tops") (param $in i32) (param $n i32) (param $k i32) (param $outTop i32) (param $check i32)
                        (param $labels i32) (param $outC i32)
                        (result i32)
    (local $r i32) (local $p i32) (local $top i32)
    (global.set $nCorrect (i32.const 0))
    (global.set $unitRows (i32.const 0))
    (local.set $p (local.get $in))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $n)))
        (local.set $top (call $argmax (local.get $p) (local.get $k)))
        (if (i32.and (local.get $check) (global.get $rowBad)) (then (return (local.get $r))))
        (global.set $unitRows (i32.add (global.get $unitRows) (global.get $rowUnit)))
        (i32.store (i32.add (local.get $outTop) (i32.shl (local.get $r) (i32.const 2))) (local.get $top))
        (call $correct (local.get $labels) (local.get $outC) (local.get $r) (local.get $top))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
    (local.get $n))

  ;; "binary": a binary classifier's $n >= 1 float32 logits z at $in (SPEC §11: the rows [0, z]),
  ;; as binaryStats in src/math/sigmoid.ts: c = [label = (z > 0)] -> u8 at $outC, counted in
  ;; $nCorrect (labels: i32 0 or 1 at $labels), and -|z| -> f32 at $tmp (exact); with $outS != 0
  ;; then s = expNonPositive(-|z|) -> f64 at $outS by $expSlow with m = 0, whose pairs take the fast
  ;; form inline where both allow it: the bits of the rows path's s for [0, z]. (q = 1/(1+s) is
  ;; left to the caller: this module is kept small.) $tmp must be readable 4 bytes past its n
  ;; float32; writes one f64 past s.
  (func (export "binary") (param $in i32) (param $n i32) (param $labels i32) (param $outC i32)
                          (param $tmp i32) (param $outS i32)
    (local $i i32) (local $c i32) (local $nc i32) (local $z f32)
    (loop $l
      (local.set $z (f32.load (i32.add (local.get $in) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $c (i32.eq (f32.gt (local.get $z) (f32.const 0))
        (i32.load (i32.add (local.get $labels) (i32.shl (local.get $i) (i32.const 2))))))
      (i32.store8 (i32.add (local.get $outC) (local.get $i)) (local.get $c))
      (local.set $nc (i32.add (local.get $nc) (local.get $c)))
      (f32.store (i32.add (local.get $tmp) (i32.shl (local.get $i) (i32.const 2)))
        (f32.neg (f32.abs (local.get $z))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (global.set $nCorrect (local.get $nc))
    (if (local.get $outS)
      (then (call $expSlow (local.get $tmp) (local.get $n) (local.get $outS) (f64.const 0)))))

  ;; ---------------------------------------------------------------------------------------------
  ;; $log: natural log of float64, in place, bit-identical to V8's Math.log, which is fdlibm's
  ;; __ieee754_log (e_log.c, V8's base::ieee754::log). Two lanes per f64x2; every branch of fdlibm
  ;; is kept, with the same constants and the same operation order (no FMA in this instruction
  ;; set, so every product and sum rounds as in the C source):
  ;;   x < 2^-1022: +-0 -> -two54/0 = -inf; x < 0 -> (x-x)/0 = NaN; subnormal: x *= two54, k = -54
  ;;   hx >= 0x7ff00000 (+inf, NaN): x + x
  ;;   k += (hx>>20) - 1023; hx &= 0xfffff; i = (hx + 0x95f64) & 0x100000;
  ;;   x = hx | (i ^ 0x3ff00000) (high word: x or x/2 in [sqrt(2)/2, sqrt(2))); k += i>>20; f = x - 1
  ;;   (2+hx) & 0xfffff < 3 (-2^-20 <= f < 2^-20):
  ;;     f == 0: k == 0 ? 0 : dk*ln2_hi + dk*ln2_lo
  ;;     R = f*f*(0.5 - 0.33333333333333333*f); k == 0 ? f - R : dk*ln2_hi - ((R - dk*ln2_lo) - f)
  ;;   s = f/(2+f); z = s*s; w = z*z; t1 = w*(Lg2+w*(Lg4+w*Lg6)); t2 = z*(Lg1+w*(Lg3+w*(Lg5+w*Lg7)))
  ;;   R = t2 + t1; i = (hx - 0x6147a) | (0x6b851 - hx)
  ;;   i > 0: hfsq = 0.5*f*f; k == 0 ? f - (hfsq - s*(hfsq+R))
  ;;                               : dk*ln2_hi - ((hfsq - (s*(hfsq+R) + dk*ln2_lo)) - f)
  ;;   else:  k == 0 ? f - s*(f-R) : dk*ln2_hi - ((s*(f-R) - dk*ln2_lo) - f)
  ;; Every case is computed as dk*ln2_hi - (P - f) with P = R - dk*ln2_lo, hfsq - (s*(hfsq+R) +
  ;; dk*ln2_lo) or s*(f-R) - dk*ln2_lo: the k != 0 forms, which give the same bits as the k == 0
  ;; and f == 0 forms. With k == 0, dk = +0 and dk*ln2_hi = dk*ln2_lo = +0: y - 0 is y; y + 0 is y
  ;; but for y = -0 (-> +0), and that sum is only subtracted from hfsq != 0, where the sign of a
  ;; zero makes no difference; and 0 - (P - f) = -(P - f) = f - P exactly (round to nearest is
  ;; symmetric; P - f is 0 only where f == 0). With f == 0 (|f| < 2^-20 branch, R = 0):
  ;; P = 0 - dk*ln2_lo = -dk*ln2_lo, and dk*ln2_hi - (P - 0) = dk*ln2_hi + dk*ln2_lo, +0 if k == 0.
  ;; The i > 0 and |f| < 2^-20 lanes are rare in most data: their P is computed, and blended in,
  ;; only in steps that have one. Lanes that are not positive normal finite (zero, subnormal,
  ;; negative, inf, NaN) are rarer still: such a step also scales subnormals and patches the
  ;; special results in.

  ;; Its constants. Mutable globals: TurboFan rematerialises a v128.const (or a local holding one)
  ;; at each use in a loop, three instructions each; a global is one load.
  (global $cMANT (mut v128) (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))  ;; hx & 0xfffff, lx
  (global $c95F64 (mut v128) (v128.const i64x2 0x00095f6400000000 0x00095f6400000000)) ;; 0x95f64 in hx
  (global $cBIT52 (mut v128) (v128.const i64x2 0x0010000000000000 0x0010000000000000)) ;; 0x100000 in hx; 2^-1022
  (global $cONE (mut v128) (v128.const f64x2 1.0 1.0))                                  ;; 0x3ff00000 in hx
  (global $cINF (mut v128) (v128.const f64x2 inf inf))                                  ;; 0x7ff00000 in hx
  (global $cSPECIAL (mut v128) (v128.const i64x2 0xffdfffffffffffff 0xffdfffffffffffff))
  (global $cTWO52 (mut v128) (v128.const f64x2 0x1p52 0x1p52))
  (global $cKBIAS (mut v128) (v128.const f64x2 0x1.00000000003ffp52 0x1.00000000003ffp52)) ;; 2^52 + 1023
  (global $cSM2 (mut v128) (v128.const i64x2 0x0000000200000000 0x0000000200000000))   ;; 2 in hx
  (global $cSM3 (mut v128) (v128.const i64x2 0x0000000300000000 0x0000000300000000))   ;; 3 in hx
  (global $cIOFF (mut v128) (v128.const i64x2 0x7ff9eb8600000000 0x7ff9eb8600000000))  ;; 2^63 - 0x6147a in hx
  (global $cILIM (mut v128) (v128.const i64x2 0x8000a3d800000000 0x8000a3d800000000))  ;; -2^63 + 0xa3d8 in hx
  (global $cTWO (mut v128) (v128.const f64x2 2.0 2.0))
  (global $cHALF (mut v128) (v128.const f64x2 0.5 0.5))
  (global $cTHIRD (mut v128) (v128.const i64x2 0x3fd5555555555555 0x3fd5555555555555)) ;; 0.33333333333333333
  (global $cLg1 (mut v128) (v128.const i64x2 0x3fe5555555555593 0x3fe5555555555593))  ;; 6.666666666666735130e-01
  (global $cLg2 (mut v128) (v128.const i64x2 0x3fd999999997fa04 0x3fd999999997fa04))  ;; 3.999999999940941908e-01
  (global $cLg3 (mut v128) (v128.const i64x2 0x3fd2492494229359 0x3fd2492494229359))  ;; 2.857142874366239149e-01
  (global $cLg4 (mut v128) (v128.const i64x2 0x3fcc71c51d8e78af 0x3fcc71c51d8e78af))  ;; 2.222219843214978396e-01
  (global $cLg5 (mut v128) (v128.const i64x2 0x3fc7466496cb03de 0x3fc7466496cb03de))  ;; 1.818357216161805012e-01
  (global $cLg6 (mut v128) (v128.const i64x2 0x3fc39a09d078c69f 0x3fc39a09d078c69f))  ;; 1.531383769920937332e-01
  (global $cLg7 (mut v128) (v128.const i64x2 0x3fc2f112df3e5244 0x3fc2f112df3e5244))  ;; 1.479819860511658591e-01
  (global $cLN2HI (mut v128) (v128.const i64x2 0x3fe62e42fee00000 0x3fe62e42fee00000)) ;; ln2_hi = 6.93147180369123816490e-01
  (global $cLN2LO (mut v128) (v128.const i64x2 0x3dea39ef35793c76 0x3dea39ef35793c76)) ;; ln2_lo = 1.90821492927058770002e-10

  ;; log of the $n float64 at $p, in place, two per step: an odd $n also rewrites the float64
  ;; after the last (so 8 bytes past the end must be writable).
  (func (export "log") (param $p i32) (param $n i32)
    (local $end i32) (local $special i32)
    (local $x0 v128) (local $x v128) (local $kbias v128) (local $m v128) (local $i v128)
    (local $f v128) (local $dk v128) (local $s v128) (local $z v128) (local $w v128) (local $R v128)
    (local $dlo v128) (local $hfsq v128) (local $P v128) (local $small v128) (local $ipos v128)
    (local $zero v128) ;; never set
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $x0 (v128.load (local.get $p)))
        (local.set $x (local.get $x0))
        (local.set $kbias (global.get $cKBIAS))
        ;; a lane not positive normal finite: bits b outside [0x0010.., 0x7ff0..), that is
        ;; b + 0x7ff0.. (mod 2^64) not below 0xffe0.. as a signed integer
        (local.set $special (i64x2.bitmask (i64x2.gt_s
          (i64x2.add (local.get $x0) (global.get $cINF)) (global.get $cSPECIAL))))
        (if (local.get $special)
          (then
            ;; x < 2^-1022: x *= two54, k -= 54 (which matters for subnormals only: the results of
            ;; the others are replaced at the end)
            (local.set $s (f64x2.lt (local.get $x0) (global.get $cBIT52)))
            (local.set $x (v128.bitselect (f64x2.mul (local.get $x0) (v128.const f64x2 0x1p54 0x1p54))
                                          (local.get $x0) (local.get $s)))
            (local.set $kbias (v128.bitselect (v128.const f64x2 0x1.0000000000435p52 0x1.0000000000435p52) ;; 2^52 + 1077
                                              (local.get $kbias) (local.get $s)))))
        ;; hx &= 0x000fffff (m: the whole mantissa, low word included); i = (hx + 0x95f64) & 0x100000
        (local.set $m (v128.and (local.get $x) (global.get $cMANT)))
        (local.set $i (v128.and (i64x2.add (local.get $m) (global.get $c95F64)) (global.get $cBIT52)))
        ;; x = hx | (i ^ 0x3ff00000), that is (hx | 0x3ff00000) - i; f = x - 1.0
        (local.set $f (f64x2.sub (i64x2.sub (v128.or (local.get $m) (global.get $cONE)) (local.get $i))
                                 (global.get $cONE)))
        ;; dk = (double)k, k = (hx >> 20) - 1023 + (i >> 20) (- 54): the exponent field of x plus
        ;; i >> 20, put in the low bits of 2^52 and the bias subtracted (exact)
        (local.set $dk (f64x2.sub
          (v128.or (i64x2.shr_u (i64x2.add (local.get $x) (local.get $i)) (i32.const 52)) (global.get $cTWO52))
          (local.get $kbias)))
        ;; s = f/(2.0+f); z = s*s; w = z*z; R = t2 + t1
        (local.set $s (f64x2.div (local.get $f) (f64x2.add (global.get $cTWO) (local.get $f))))
        (local.set $z (f64x2.mul (local.get $s) (local.get $s)))
        (local.set $w (f64x2.mul (local.get $z) (local.get $z)))
        (local.set $R (f64x2.add
          ;; t2 = z*(Lg1+w*(Lg3+w*(Lg5+w*Lg7)))
          (f64x2.mul (local.get $z) (f64x2.add (global.get $cLg1) (f64x2.mul (local.get $w)
            (f64x2.add (global.get $cLg3) (f64x2.mul (local.get $w)
              (f64x2.add (global.get $cLg5) (f64x2.mul (local.get $w) (global.get $cLg7))))))))
          ;; t1 = w*(Lg2+w*(Lg4+w*Lg6))
          (f64x2.mul (local.get $w) (f64x2.add (global.get $cLg2) (f64x2.mul (local.get $w)
            (f64x2.add (global.get $cLg4) (f64x2.mul (local.get $w) (global.get $cLg6))))))))
        (local.set $dlo (f64x2.mul (local.get $dk) (global.get $cLN2LO)))
        ;; P = s*(f-R) - dk*ln2_lo
        (local.set $P (f64x2.sub (f64x2.mul (local.get $s) (f64x2.sub (local.get $f) (local.get $R)))
                                 (local.get $dlo)))
        ;; (2+hx) & 0xfffff < 3, as ((m + (2 << 32)) & mant) < 3 << 32
        (local.set $small (i64x2.gt_s (global.get $cSM3)
          (v128.and (i64x2.add (local.get $m) (global.get $cSM2)) (global.get $cMANT))))
        ;; i > 0, that is 0 <= hx - 0x6147a < 0xa3d8: one signed compare after adding 2^63
        (local.set $ipos (i64x2.gt_s (global.get $cILIM) (i64x2.add (local.get $m) (global.get $cIOFF))))
        (if (i64x2.bitmask (v128.or (local.get $small) (local.get $ipos)))
          (then
            ;; |f| < 2^-20: P = f*f*(0.5-0.33333333333333333*f) - dk*ln2_lo
            (local.set $P (v128.bitselect
              (f64x2.sub
                (f64x2.mul (f64x2.mul (local.get $f) (local.get $f))
                           (f64x2.sub (global.get $cHALF) (f64x2.mul (global.get $cTHIRD) (local.get $f))))
                (local.get $dlo))
              (local.get $P) (local.get $small)))
            ;; i > 0: P = hfsq-(s*(hfsq+R)+dk*ln2_lo), hfsq = 0.5*f*f
            (local.set $hfsq (f64x2.mul (f64x2.mul (global.get $cHALF) (local.get $f)) (local.get $f)))
            (local.set $P (v128.bitselect
              (f64x2.sub (local.get $hfsq)
                (f64x2.add (f64x2.mul (local.get $s) (f64x2.add (local.get $hfsq) (local.get $R))) (local.get $dlo)))
              (local.get $P) (local.get $ipos)))))
        ;; dk*ln2_hi - (P - f)
        (local.set $P (f64x2.sub (f64x2.mul (local.get $dk) (global.get $cLN2HI))
                                 (f64x2.sub (local.get $P) (local.get $f))))
        (if (local.get $special)
          (then
            ;; hx >= 0x7ff00000 (+inf, NaN): x + x; x < 0 (-inf too): (x - x)/0 = NaN; +-0: -inf
            (local.set $P (v128.bitselect (local.get $P) (f64x2.add (local.get $x0) (local.get $x0))
                                          (f64x2.lt (local.get $x0) (global.get $cINF))))
            (local.set $P (v128.bitselect
              (f64x2.div (f64x2.sub (local.get $x0) (local.get $x0)) (local.get $zero)) (local.get $P)
              (f64x2.lt (local.get $x0) (local.get $zero))))
            (local.set $P (v128.bitselect (f64x2.neg (global.get $cINF)) (local.get $P)
                                          (f64x2.eq (local.get $x0) (local.get $zero))))))
        (v128.store (local.get $p) (local.get $P))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $step))))

  ;; ---------------------------------------------------------------------------------------------
  ;; Adds n samples to the bin statistics at po (float64: B counts, B Σc, B Σy; B = nb), as
  ;; accumulateBins in ../binning.ts: bin = min(B − 1, trunc(c·B)) of the float64 c at pc, Σc in
  ;; sample order; the counts and Σy (of the bytes at py) in int32 at pi (2B, zeroed here), added
  ;; once per bin at the end, which for integer sums below 2^52 (the caller checks) are the same
  ;; bits as adding each sample's 1 and y in turn (every partial sum is exact). checkKernel.wat's
  ;; "bins" with float64 loads: the q of the rows need not leave this module's memory for a
  ;; second one.
  (func (export "bins") (param $pc i32) (param $py i32) (param $n i32) (param $nb i32) (param $po i32) (param $pi i32)
    (local $i i32) (local $c f64) (local $raw i32) (local $a i32) (local $fb f64) (local $stride i32)
    (local $q i32)
    (local.set $fb (f64.convert_i32_u (local.get $nb)))
    (local.set $stride (i32.shl (local.get $nb) (i32.const 3)))
    (memory.fill (local.get $pi) (i32.const 0) (local.get $stride))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (f64.load (i32.add (local.get $pc) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $raw (i32.trunc_sat_f64_s (f64.mul (local.get $c) (local.get $fb))))
        (if (i32.ge_s (local.get $raw) (local.get $nb))
          (then (local.set $raw (i32.sub (local.get $nb) (i32.const 1)))))
        (local.set $a (i32.add (i32.add (local.get $po) (local.get $stride)) (i32.shl (local.get $raw) (i32.const 3))))
        (f64.store (local.get $a) (f64.add (f64.load (local.get $a)) (local.get $c)))
        ;; count at pi + 8·raw, Σy at pi + 8·raw + 4
        (local.set $q (i32.add (local.get $pi) (i32.shl (local.get $raw) (i32.const 3))))
        (i32.store (local.get $q) (i32.add (i32.load (local.get $q)) (i32.const 1)))
        (i32.store offset=4 (local.get $q) (i32.add (i32.load offset=4 (local.get $q))
          (i32.load8_u (i32.add (local.get $py) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.set $i (i32.const 0))
    (block $added
      (loop $b
        (br_if $added (i32.ge_u (local.get $i) (local.get $nb)))
        (local.set $q (i32.add (local.get $pi) (i32.shl (local.get $i) (i32.const 3))))
        (local.set $a (i32.add (local.get $po) (i32.shl (local.get $i) (i32.const 3))))
        (f64.store (local.get $a) (f64.add (f64.load (local.get $a)) (f64.convert_i32_u (i32.load (local.get $q)))))
        (local.set $a (i32.add (local.get $a) (i32.shl (local.get $stride) (i32.const 1))))
        (f64.store (local.get $a)
          (f64.add (f64.load (local.get $a)) (f64.convert_i32_u (i32.load offset=4 (local.get $q)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $b)))
  )
)
