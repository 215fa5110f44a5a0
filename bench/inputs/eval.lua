-- Evaluation workload: n-body style float loops, binary trees, string hashing, method calls.
local N = tonumber(arg and arg[1]) or 1
local function bottomup(d)
  if d == 0 then return {} end
  d = d - 1
  return { bottomup(d), bottomup(d) }
end
local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end
local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({ x = x, y = y }, Point) end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point:norm2() return self.x * self.x + self.y * self.y end
local acc = 0
for r = 1, N do
  for d = 4, 15, 2 do acc = acc + check(bottomup(d)) end
  local p = Point.new(0, 0)
  local q = Point.new(0.5, 0.25)
  for i = 1, 400000 do p = p:add(q); if p:norm2() > 1e6 then p = Point.new(0, 0) end end
  acc = acc + math.floor(p.x)
  local h = {}
  for i = 1, 100000 do
    local k = "k" .. (i % 5000)
    h[k] = (h[k] or 0) + i
  end
  for k, v in pairs(h) do acc = (acc + #k + v) % 1000003 end
  local s = 0.0
  for i = 1, 1000000 do s = s + math.sin(i) * 0.5 end
  acc = acc + math.floor(s)
end
print(acc)
