; CLIPS evaluation workload for the PGO benchmark (clips), another program than train.clp: a sieve by
; retraction (two-pattern join), towers of Hanoi on a goal stack, a bubble sort of indexed facts,
; float loops in a deffunction, and COOL points with a polymorphic handler.
(defglobal ?*moves* = 0)

(defrule sieve
  (prime-candidate ?x)
  ?f <- (prime-candidate ?y&:(> ?y ?x)&:(= 0 (mod ?y ?x)))
  =>
  (retract ?f))

(deftemplate move (slot n) (slot from) (slot to) (slot via) (slot depth))
(defrule hanoi-split
  ?g <- (move (n ?n&:(> ?n 1)) (from ?f) (to ?t) (via ?v) (depth ?d))
  (not (move (depth ?e&:(> ?e ?d))))
  =>
  (retract ?g)
  (assert (move (n (- ?n 1)) (from ?v) (to ?t) (via ?f) (depth (+ ?d 1))))
  (assert (step ?f ?t (+ ?d 2)))
  (assert (move (n (- ?n 1)) (from ?f) (to ?v) (via ?t) (depth (+ ?d 3)))))
(defrule hanoi-one
  ?g <- (move (n 1) (depth ?d))
  (not (move (depth ?e&:(> ?e ?d))))
  =>
  (retract ?g)
  (bind ?*moves* (+ ?*moves* 1)))
(defrule hanoi-step
  ?g <- (step ?f ?t ?d)
  (not (move (depth ?e&:(> ?e ?d))))
  =>
  (retract ?g)
  (bind ?*moves* (+ ?*moves* 1)))

(deftemplate cell (slot pos) (slot val))
(defrule bubble
  ?a <- (cell (pos ?i) (val ?x))
  ?b <- (cell (pos ?j&:(= ?j (+ ?i 1))) (val ?y&:(< ?y ?x)))
  =>
  (modify ?a (val ?y))
  (modify ?b (val ?x)))

(deffunction integrate (?steps)
  (bind ?s 0.0)
  (bind ?h (/ 1.0 ?steps))
  (bind ?i 0)
  (while (< ?i ?steps)
    (bind ?x (* (+ ?i 0.5) ?h))
    (bind ?s (+ ?s (/ 4.0 (+ 1.0 (* ?x ?x)))))
    (bind ?i (+ ?i 1)))
  (* ?s ?h))

(defclass SHAPE (is-a USER) (slot size (create-accessor read-write) (visibility public) (default 1)))
(defclass SQUARE (is-a SHAPE))
(defclass CIRCLE (is-a SHAPE))
(defmessage-handler SQUARE area () (* ?self:size ?self:size))
(defmessage-handler CIRCLE area () (* 3.14159 ?self:size ?self:size))

(deffunction shapes (?k)
  (bind ?all (create$))
  (loop-for-count (?i 1 50)
    (bind ?all (create$ ?all (make-instance of (if (evenp ?i) then SQUARE else CIRCLE) (size ?i)))))
  (bind ?t 0.0)
  (loop-for-count (?j 1 ?k)
    (progn$ (?o ?all) (bind ?t (+ ?t (send ?o area)))))
  ?t)

(deffunction one-round (?r)
  (reset)
  (loop-for-count (?i 2 (+ 1200 ?r)) (assert (prime-candidate ?i)))
  (assert (move (n 12) (from a) (to c) (via b) (depth 0)))
  (loop-for-count (?i 1 70) (assert (cell (pos ?i) (val (mod (* ?i 37) 101)))))
  (run)
  (bind ?p (length$ (find-all-facts ((?f cell)) TRUE)))
  (+ ?p (integrate 40000) (shapes 300)))

(loop-for-count (?r 1 6) (printout t (one-round ?r) " " ?*moves* crlf))
(exit)
