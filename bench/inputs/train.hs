-- Haskell training workload for hugs98: recursion, list sorting, Data.Map word counts,
-- strings (words, show, read), arrays (accumArray), type classes, folds. Usage: runhugs train.hs N
module Main where
import System.Environment (getArgs)
import Data.List (sort, foldl', group)
import qualified Data.Map as M
import Data.Array
import Data.Char (toUpper, isDigit, ord, chr)

data Shape = Circle Double | Rect Double Double | Tri Double Double Double
class Area a where area :: a -> Double
instance Area Shape where
  area (Circle r) = 3.14159 * r * r
  area (Rect a b) = a * b
  area (Tri a b c) = let s = (a + b + c) / 2 in sqrt (s * (s-a) * (s-b) * (s-c))

nfib :: Int -> Int
nfib n = if n < 2 then 1 else nfib (n-1) + nfib (n-2) + 1

lcg :: Int -> Int
lcg x = (x * 75 + 74) `mod` 65537

randoms :: Int -> Int -> [Int]
randoms n s = take n (tail (iterate lcg s))

msort :: Ord a => [a] -> [a]
msort [] = []
msort [x] = [x]
msort xs = merge (msort a) (msort b)
  where (a, b) = splitAt (length xs `div` 2) xs
        merge [] ys = ys
        merge xs' [] = xs'
        merge (x:xt) (y:yt) | x <= y = x : merge xt (y:yt)
                            | otherwise = y : merge (x:xt) yt

wordsOf :: [String]
wordsOf = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]

wordCount :: [Int] -> M.Map String Int
wordCount = foldl' (\m i -> M.insertWith (+) (wordsOf !! (i `mod` 10)) 1 m) M.empty

histogram :: [Int] -> Array Int Int
histogram xs = accumArray (+) 0 (0, 15) [(x `mod` 16, 1) | x <- xs]

textStats :: Int -> Int
textStats n = let s = unwords [ map toUpper w ++ show i | (i, w) <- zip [1..n] (cycle wordsOf) ]
                  ds = filter isDigit s
              in length (words s) + sum (map (\c -> ord c - 48) ds) + length (group (sort s))

rot13 :: String -> String
rot13 = map r where r c | c >= 'a' && c <= 'z' = chr ((ord c - 97 + 13) `mod` 26 + 97)
                        | otherwise = c

oneRound :: Int -> Int
oneRound r =
  let xs = randoms 400 (r + 1)
      shapes = [ if even x then Circle (fromIntegral (x `mod` 10)) else Rect 2 (fromIntegral (x `mod` 7)) | x <- take 50 xs ]
      a = round (sum (map area shapes)) :: Int
      s = sum (take 10 (msort xs)) + sum (take 10 (reverse (sort xs)))
      wc = sum (M.elems (wordCount xs)) + M.size (wordCount xs)
      h = sum [ i * c | (i, c) <- assocs (histogram xs) ]
      t = textStats 60
      rd = sum (map read (words (unwords (map show (take 40 xs))))) :: Int
      rt = length (filter (== 'n') (rot13 (concat (replicate 20 "hello world"))))
  in (nfib 12 + a + s + wc + h + t + rd + rt) `mod` 1000003

main :: IO ()
main = do
  [n] <- fmap (map read) getArgs
  print (foldl' (+) 0 (map oneRound [1..n]))
