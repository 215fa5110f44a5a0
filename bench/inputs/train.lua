-- Training workload (different from eval.lua): recursion, string building, table sort, closures.
local N = tonumber(arg and arg[1]) or 1
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local acc = 0
for r = 1, N do
  acc = acc + fib(27)
  local t = {}
  for i = 1, 200000 do t[i] = (i * 7919) % 100003 end
  table.sort(t)
  acc = acc + t[1000]
  local parts = {}
  for i = 1, 50000 do parts[#parts + 1] = string.format("%d:%s", i, tostring(i * 3)) end
  local s = table.concat(parts, ",")
  for w in s:gmatch("%d+:1%d*") do acc = acc + #w end
  local mk = function(k) return function(x) return x * k + 1 end end
  local f = mk(3)
  for i = 1, 300000 do acc = (acc + f(i)) % 1000003 end
end
print(acc)
