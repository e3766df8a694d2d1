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
  ;; $outP + 8*((i*k + j)*(m+1) + a): each class's M members side by side, with a slot after them
  ;; for the 0 that $ofsum writes. Then per sample and class Σ_a p_aj by $ofsum -> f64 at
  ;; $outSum + 8*(i*k + j): the same multiset and the same method as the JS, hence the same bits
  ;; for any member order. $e is scratch for k + 4 float64; the input must be readable 64 bytes
  ;; past its end.
  (func (export "members") (param $in i32) (param $m i32) (param $c i32) (param $k i32) (param $e i32)
                           (param $outS i32) (param $outM i32) (param $outTop i32) (param $outP i32)
                           (param $outSum i32)
    (local $i i32) (local $a i32) (local $j i32) (local $row i32) (local $p i32) (local $top i32)
    (local $q i32) (local $stride i32) (local $mx f64) (local $inv f64) (local $s f64)
    ;; bytes from one class's block of members to the next
    (local.set $stride (i32.shl (i32.add (local.get $m) (i32.const 1)) (i32.const 3)))
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
          (f64.store (i32.add (local.get $e) (i32.shl (local.get $top) (i32.const 3))) (f64.const 1))
          (local.set $q (i32.add (local.get $outP) (i32.shl
            (i32.add (i32.mul (i32.mul (local.get $i) (local.get $k)) (i32.add (local.get $m) (i32.const 1))) (local.get $a))
            (i32.const 3))))
          (local.set $j (i32.const 0))
          (loop $class
            (f64.store (local.get $q) (f64.mul
              (f64.load (i32.add (local.get $e) (i32.shl (local.get $j) (i32.const 3)))) (local.get $inv)))
            (local.set $q (i32.add (local.get $q) (local.get $stride)))
            (br_if $class (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $k))))
          (br_if $member (i32.lt_u (local.tee $a (i32.add (local.get $a) (i32.const 1))) (local.get $m))))
        ;; Σ_a p_aj per class
        (local.set $q (i32.add (local.get $outP) (i32.mul (i32.mul (local.get $i) (local.get $k)) (local.get $stride))))
        (local.set $row (i32.add (local.get $outSum) (i32.shl (i32.mul (local.get $i) (local.get $k)) (i32.const 3))))
        (local.set $j (i32.const 0))
        (loop $sum
          (f64.store (local.get $row) (call $ofsum (local.get $q) (local.get $m)))
          (local.set $q (i32.add (local.get $q) (local.get $stride)))
          (local.set $row (i32.add (local.get $row) (i32.const 8)))
          (br_if $sum (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $k))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $sample))))
)
