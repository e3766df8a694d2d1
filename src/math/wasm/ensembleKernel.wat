;; An ensemble's member softmax (SPEC §12), bit-identical to the JS it replaces (LogitsWork in
;; src/math/ensemble.ts): the member stage of the ensemble measures, where nearly all of their work
;; is. It is a module of its own, compiled only when an ensemble is evaluated, on the memory and
;; with the functions of softmaxKernel.wat, which the loader (ensembleKernel.ts) passes in: its
;; first argmax and row minimum, its exp lanes and its order-free sum, so that every value has the
;; bits of the rows kernel and of the JS.
;;
;; Regenerate the embedded bytes with `node scripts/build-wasm.mjs`.
(module
  (import "k" "memory" (memory 1))
  ;; the first argmax of a float32 row (setting $rowMin), softmaxKernel.wat's $argmax
  (import "k" "a" (func $argmax (param i32 i32) (result i32)))
  (import "k" "g" (global $rowMin (mut f64)))
  ;; exp(z_j - m) of a row into float64, the fast (every x >= -704) and the any-row forms
  (import "k" "expFast" (func $expFast (param i32 i32 i32 f64)))
  (import "k" "expSlow" (func $expSlow (param i32 i32 i32 f64)))
  ;; orderFreeSum of n >= 1 float64 (writes 0 to the float64 after them)
  (import "k" "o" (func $ofsum (param i32 i32) (result f64)))

;; "members": an ensemble's member softmax (SPEC §12), as LogitsWork.members and logMean in
  ;; src/math/ensemble.ts: $in holds $c samples of $m members' $k float32 logits, [M, c, K] (member
  ;; a's row of sample i at (a*c + i)*k). Per member row, as "rows": top -> i32 at $outTop, m = z_top
  ;; -> f64 at $outM, s = orderFreeSum of e_j = exp(z_j - m) (e_top = 0) -> f64 at $outS (each at
  ;; index a*c + i); then p_j = e_j * (1/(1+s)) (p_top = 1/(1+s): e_top set to 1 first) -> f64 at
  ;; $outP + 8*((i*m + a)*k + j), [c, M, K] (one float64 past the last row is written too). Then
  ;; per sample and class Σ_a p_aj -> f64 at $outSum + 8*(i*k + j), by $ofsum's method with the
  ;; classes in lanes (see $classSums): the same multiset and the same exact sums as the JS, hence
  ;; the same bits for any member order. $e is scratch for max(k, m) + 4 float64; the input must be
  ;; readable 64 bytes past its end.
  (func (export "members") (param $in i32) (param $m i32) (param $c i32) (param $k i32) (param $e i32)
                           (param $outS i32) (param $outM i32) (param $outTop i32) (param $outP i32)
                           (param $outSum i32)
    (local $i i32) (local $a i32) (local $j i32) (local $row i32) (local $p i32) (local $top i32)
    (local $q i32) (local $mx f64) (local $inv f64) (local $s f64) (local $iv v128)
    (block $samples
      (loop $sample
        (br_if $samples (i32.ge_u (local.get $i) (local.get $c)))
        (local.set $a (i32.const 0))
        (loop $member
          (local.set $row (i32.add (i32.mul (local.get $a) (local.get $c)) (local.get $i)))
          (local.set $p (i32.add (local.get $in) (i32.mul (local.get $row) (i32.shl (local.get $k) (i32.const 2)))))
          (local.set $top (call $argmax (local.get $p) (local.get $k)))
          (local.set $mx (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.shl (local.get $top) (i32.const 2))))))
          (if (f64.le (f64.sub (local.get $mx) (global.get $rowMin)) (f64.const 704))
            (then (call $expFast (local.get $p) (local.get $k) (local.get $e) (local.get $mx)))
            (else (call $expSlow (local.get $p) (local.get $k) (local.get $e) (local.get $mx))))
          (f64.store (i32.add (local.get $e) (i32.shl (local.get $top) (i32.const 3))) (f64.const 0))
          (local.set $s (call $ofsum (local.get $e) (local.get $k)))
          (f64.store (i32.add (local.get $outS) (i32.shl (local.get $row) (i32.const 3))) (local.get $s))
          (f64.store (i32.add (local.get $outM) (i32.shl (local.get $row) (i32.const 3))) (local.get $mx))
          (i32.store (i32.add (local.get $outTop) (i32.shl (local.get $row) (i32.const 2))) (local.get $top))
          (local.set $inv (f64.div (f64.const 1) (f64.add (f64.const 1) (local.get $s))))
          (local.set $iv (f64x2.splat (local.get $inv)))
          (f64.store (i32.add (local.get $e) (i32.shl (local.get $top) (i32.const 3))) (f64.const 1))
          ;; p = e * inv, two a step
          (local.set $q (i32.add (local.get $outP)
            (i32.shl (i32.mul (i32.add (i32.mul (local.get $i) (local.get $m)) (local.get $a)) (local.get $k)) (i32.const 3))))
          (local.set $j (i32.const 0))
          (loop $class
            (v128.store (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 3)))
              (f64x2.mul (v128.load (i32.add (local.get $e) (i32.shl (local.get $j) (i32.const 3)))) (local.get $iv)))
            (br_if $class (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 2))) (local.get $k))))
          (br_if $member (i32.lt_u (local.tee $a (i32.add (local.get $a) (i32.const 1))) (local.get $m))))
        (call $classSums
          (i32.add (local.get $outP) (i32.shl (i32.mul (i32.mul (local.get $i) (local.get $m)) (local.get $k)) (i32.const 3)))
          (local.get $m) (local.get $k) (local.get $e)
          (i32.add (local.get $outSum) (i32.shl (i32.mul (local.get $i) (local.get $k)) (i32.const 3))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $sample))))

  ;; Σ_a p_aj of one sample's p [m, k] at $p -> f64 at $out + 8j, each bit for bit $ofsum of the
  ;; class's m values (the JS orderFreeSum), two classes in the lanes of a vector: per lane the
  ;; largest exponent field over the members gives p = 1075 - B - field (B = ceil(log2 m)), each
  ;; value scaled by 2^p adds floor(x) to H and floor((x - floor x)*2^(53-B)) to L, integers whose
  ;; sums are exact in any order, then $ofsum's rounding on the lane's H and L. A class whose 2^p
  ;; would be above 2^1023 (every value below about 2^-970, or all 0) goes to $ofsum itself, its
  ;; values gathered into $e (m + 1 float64). The lane after the last class of an odd k reads the
  ;; float64 after the row and is not stored.
  (func $classSums (param $p i32) (param $m i32) (param $k i32) (param $e i32) (param $out i32)
    (local $j i32) (local $a i32) (local $l i32) (local $b i32) (local $pl i32) (local $q i32) (local $at i32)
    (local $hs f64) (local $ls f64) (local $r f64)
    (local $v v128) (local $mx v128) (local $sc v128) (local $x v128) (local $f v128) (local $h v128) (local $lo v128)
    (local $cv v128) (local $pv v128)
    (local.set $b (i32.sub (i32.const 32) (i32.clz (i32.sub (local.get $m) (i32.const 1)))))
    (local.set $cv (f64x2.splat (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.sub (i32.const 1076) (local.get $b))) (i64.const 52)))))
    (loop $pair
      (local.set $mx (v128.const i64x2 0 0))
      (local.set $a (i32.const 0))
      (loop $max
        (local.set $v (v128.and (v128.load (i32.add (local.get $p)
          (i32.shl (i32.add (i32.mul (local.get $a) (local.get $k)) (local.get $j)) (i32.const 3))))
          (v128.const i64x2 0x7fffffffffffffff 0x7fffffffffffffff)))
        (local.set $mx (v128.bitselect (local.get $v) (local.get $mx) (i64x2.gt_s (local.get $v) (local.get $mx))))
        (br_if $max (i32.lt_u (local.tee $a (i32.add (local.get $a) (i32.const 1))) (local.get $m))))
      ;; p per lane, and 2^p from its bits (meaningless in a lane with p > 1023, not used there)
      (local.set $pv (i64x2.sub (i64x2.splat (i64.extend_i32_u (i32.sub (i32.const 1075) (local.get $b))))
                                (i64x2.shr_u (local.get $mx) (i32.const 52))))
      (local.set $sc (i64x2.shl (i64x2.add (local.get $pv) (v128.const i64x2 1023 1023)) (i32.const 52)))
      (local.set $h (v128.const i64x2 0 0))
      (local.set $lo (v128.const i64x2 0 0))
      (local.set $a (i32.const 0))
      (loop $add
        (local.set $x (f64x2.mul (v128.load (i32.add (local.get $p)
          (i32.shl (i32.add (i32.mul (local.get $a) (local.get $k)) (local.get $j)) (i32.const 3)))) (local.get $sc)))
        (local.set $f (f64x2.floor (local.get $x)))
        (local.set $h (f64x2.add (local.get $h) (local.get $f)))
        (local.set $lo (f64x2.add (local.get $lo) (f64x2.floor (f64x2.mul (f64x2.sub (local.get $x) (local.get $f)) (local.get $cv)))))
        (br_if $add (i32.lt_u (local.tee $a (i32.add (local.get $a) (i32.const 1))) (local.get $m))))
      ;; each lane's class: the rounding of $ofsum, or $ofsum itself
      (local.set $l (i32.const 0))
      (loop $lane
        (local.set $at (i32.add (local.get $j) (local.get $l)))
        (if (i32.lt_u (local.get $at) (local.get $k))
          (then
            (if (local.get $l)
              (then
                (local.set $pl (i32.wrap_i64 (i64x2.extract_lane 1 (local.get $pv))))
                (local.set $hs (f64x2.extract_lane 1 (local.get $h)))
                (local.set $ls (f64x2.extract_lane 1 (local.get $lo))))
              (else
                (local.set $pl (i32.wrap_i64 (i64x2.extract_lane 0 (local.get $pv))))
                (local.set $hs (f64x2.extract_lane 0 (local.get $h)))
                (local.set $ls (f64x2.extract_lane 0 (local.get $lo)))))
            (if (i32.le_s (local.get $pl) (i32.const 1023))
              (then
                ;; y = H + L*2^-(53-B), one rounding; y*2^-p, as (y*2^(1022-p))*2^-1022 when p > 1022
                (local.set $r (f64.add (local.get $hs) (f64.mul (local.get $ls)
                  (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.add (local.get $b) (i32.const 970))) (i64.const 52))))))
                (local.set $q (select (i32.const -1022) (i32.const 0) (i32.gt_s (local.get $pl) (i32.const 1022))))
                (local.set $r (f64.mul
                  (f64.mul (local.get $r)
                    (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.sub (i32.sub (i32.const 1023) (local.get $pl)) (local.get $q))) (i64.const 52))))
                  (f64.reinterpret_i64 (i64.shl (i64.extend_i32_u (i32.add (local.get $q) (i32.const 1023))) (i64.const 52))))))
              (else
                (local.set $a (i32.const 0))
                (loop $gather
                  (f64.store (i32.add (local.get $e) (i32.shl (local.get $a) (i32.const 3)))
                    (f64.load (i32.add (local.get $p)
                      (i32.shl (i32.add (i32.mul (local.get $a) (local.get $k)) (local.get $at)) (i32.const 3)))))
                  (br_if $gather (i32.lt_u (local.tee $a (i32.add (local.get $a) (i32.const 1))) (local.get $m))))
                (local.set $r (call $ofsum (local.get $e) (local.get $m)))))
            (f64.store (i32.add (local.get $out) (i32.shl (local.get $at) (i32.const 3))) (local.get $r))))
        (br_if $lane (i32.lt_u (local.tee $l (i32.add (local.get $l) (i32.const 1))) (i32.const 2))))
      (br_if $pair (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 2))) (local.get $k)))))
)
