-- Haskell evaluation workload for hugs98, a different program from train.hs: n-queens, a prime
-- sieve, an LCS table in an array, Integer factorials, a binary tree, a Data.Map index of
-- generated sentences, floating-point series. Usage: runhugs eval.hs ROUNDS SIZE
module Main where
import System.Environment (getArgs)
import Data.List (foldl', sortBy, isPrefixOf)
import qualified Data.Map as M
import Data.Array

queens :: Int -> Int
queens n = length (go n)
  where go 0 = [[]]
        go k = [ q:qs | qs <- go (k-1), q <- [1..n], safe q qs ]
        safe q qs = and [ q /= c && abs (q - c) /= d | (d, c) <- zip [1..] qs ]

primes :: Int -> [Int]
primes n = sieve [2..n] where
  sieve (p:xs) | p * p > n = p : xs
               | otherwise = p : sieve [ x | x <- xs, x `mod` p /= 0 ]
  sieve [] = []

lcs :: String -> String -> Int
lcs xs ys = table ! (n, m)
  where n = length xs
        m = length ys
        xa = listArray (1, n) xs
        ya = listArray (1, m) ys
        table = array ((0,0), (n,m)) [ ((i,j), f i j) | i <- [0..n], j <- [0..m] ]
        f 0 _ = 0
        f _ 0 = 0
        f i j | xa ! i == ya ! j = table ! (i-1, j-1) + 1
              | otherwise = max (table ! (i-1, j)) (table ! (i, j-1))

data Tree = Leaf | Node Tree Int Tree
insert :: Int -> Tree -> Tree
insert x Leaf = Node Leaf x Leaf
insert x t@(Node l v r) | x < v = Node (insert x l) v r
                        | x > v = Node l v (insert x r)
                        | otherwise = t
depth :: Tree -> Int
depth Leaf = 0
depth (Node l _ r) = 1 + max (depth l) (depth r)

next :: Int -> Int
next s = (s * 171) `mod` 30269

sentence :: Int -> String
sentence s = unwords [ ws !! ((s `div` k) `mod` 8) | k <- [1, 7, 49, 343, 2401] ]
  where ws = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dogs"]

wordIndex :: [String] -> M.Map String [Int]
wordIndex ss = M.fromListWith (++) [ (w, [i]) | (i, s) <- zip [0..] ss, w <- words s ]

series :: Int -> Double
series n = sum [ (if even k then 1 else -1) / fromIntegral (2 * k + 1) | k <- [0..n] ]

oneRound :: Int -> Int -> Integer
oneRound size r =
  let q = queens (3 + size)
      p = sum (primes (500 * size))
      rs = take (100 * size) (iterate next (r + 3))
      l = lcs (take (10 * size) (show (product [1..fromIntegral (20 * size) :: Integer]))) (concatMap show (take (4 * size) rs))
      t = depth (foldr insert Leaf (map (`mod` 100000) rs))
      ix = wordIndex (map sentence (take (30 * size) rs))
      iw = sum (map length (M.elems ix)) + length (filter ("th" `isPrefixOf`) (M.keys ix))
      sorted = take 5 (sortBy (flip compare) (map (`mod` 1000) rs))
      sr = round (1000 * series (200 * size)) :: Int
  in fromIntegral (q + p + l + t + iw + sum sorted + sr)

main :: IO ()
main = do
  [rounds, size] <- fmap (map read) getArgs
  print (foldl' (+) 0 [ oneRound size r | r <- [1..rounds] ])
