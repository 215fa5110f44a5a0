; CLIPS training workload for the PGO benchmark (clips): rule chains with modify, a three-way join,
; recursive deffunctions, strings and multifields, COOL objects with message handlers.
; Run as `clips -f2 train.clp`; ?*rounds* sets the length.
(defglobal ?*rounds* = 6 ?*hits* = 0)

(deftemplate fib (slot i) (slot a) (slot b))
(defrule fib-step
  ?f <- (fib (i ?i&:(> ?i 0)) (a ?a) (b ?b))
  =>
  (modify ?f (i (- ?i 1)) (a ?b) (b (mod (+ ?a ?b) 1000003))))

(deffacts numbers)
(defrule triple
  (n ?a)
  (n ?b&:(> ?b ?a))
  (n ?c&:(> ?c ?b)&:(= (+ (* ?a ?a) (* ?b ?b)) (* ?c ?c)))
  =>
  (bind ?*hits* (+ ?*hits* 1))
  (assert (triple ?a ?b ?c)))

(defrule count-triples
  (declare (salience -10))
  (triple ?a ?b ?c)
  (not (counted ?a ?b ?c))
  =>
  (assert (counted ?a ?b ?c)))

(deffunction fibr (?n)
  (if (< ?n 2) then ?n else (+ (fibr (- ?n 1)) (fibr (- ?n 2)))))

(deffunction ackermann (?m ?n)
  (if (= ?m 0) then (+ ?n 1)
   else (if (= ?n 0) then (ackermann (- ?m 1) 1)
         else (ackermann (- ?m 1) (ackermann ?m (- ?n 1))))))

(deffunction words (?k)
  (bind ?s "")
  (loop-for-count (?i 1 ?k)
    (bind ?s (str-cat ?s (sym-cat w (mod (* ?i 7) 13)) " ")))
  (bind ?m (explode$ ?s))
  (bind ?c 0)
  (progn$ (?w ?m) (if (eq ?w w3) then (bind ?c (+ ?c 1))))
  (+ ?c (length$ ?m) (str-length (implode$ (subseq$ ?m 1 10)))))

(defclass ACCOUNT (is-a USER)
  (slot balance (create-accessor read-write) (default 0))
  (slot ops (create-accessor read-write) (default 0)))
(defmessage-handler ACCOUNT deposit (?x)
  (bind ?self:balance (+ ?self:balance ?x))
  (bind ?self:ops (+ ?self:ops 1)))

(deffunction bank (?k)
  (bind ?a (make-instance acct1 of ACCOUNT))
  (bind ?b (make-instance acct2 of ACCOUNT))
  (loop-for-count (?i 1 ?k)
    (send ?a deposit (* ?i 1.01))
    (send ?b deposit (- 0 ?i)))
  (+ (send ?a get-balance) (send ?b get-ops)))

(deffunction one-round (?r)
  (reset)
  (assert (fib (i 30000) (a 0) (b 1)))
  (loop-for-count (?i 1 (+ 90 ?r)) (assert (n ?i)))
  (run)
  (bind ?t (fibr (+ 19 (mod ?r 3))))
  (bind ?t (+ ?t (ackermann 2 (+ 200 ?r))))
  (bind ?t (+ ?t (words 3000)))
  (bind ?t (+ ?t (bank 20000)))
  ?t)

(loop-for-count (?r 1 ?*rounds*) (printout t (one-round ?r) " " ?*hits* crlf))
(exit)
