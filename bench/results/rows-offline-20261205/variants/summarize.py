#!/usr/bin/env python3
# One summary block per plan in plans/ (run replay.sh first).
import glob, re, os
for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'plans', '*.txt'))):
    t = open(f).read().splitlines()
    name = os.path.basename(f)[:-4]
    g = next((l for l in t if 'grid:' in l), '?')
    m = re.search(r'grid: (\d+) CTAs \((.*?)\), (\d+) threads each', g)
    grid = f"{m.group(1)} CTAs x {m.group(3)} thr ({m.group(2).replace('program instances of','inst of')})" if m else g.strip()
    reg = next((l.strip() for l in t if l.strip().startswith('registers:')), '?')
    rm = re.search(r'registers: (\d+).*spills (\d+) bytes stored, (\d+) bytes loaded', reg)
    regs = f"{rm.group(1)} regs, spills {rm.group(2)}/{rm.group(3)}" if rm else reg
    pers = any(l.strip().startswith('persistent:') for l in t)
    ahead = sum('issued one instance ahead' in l for l in t)
    once = sum('loaded once' in l for l in t)
    staged = [l.strip() for l in t if 'stages through shared memory' in l or 'operand in shared memory' in l or 'one thread per line' in l]
    fitted, inside = [], False
    for l in t:
        if l.strip().startswith('fitted to the registers'): inside = True; continue
        if inside and l.startswith('    ') and not l.startswith('    v'): fitted.append(l.strip()); continue
        if inside: inside = False
    notres = [l.strip()[:120] for l in t if l.strip().startswith('not register-resident')]
    print(f"{name}: {grid}; {regs}; persistent={pers}; rows-ahead={ahead}; once={once}")
    for s in staged: print("   STAGED:", s[:260])
    for s in fitted: print("   GAVE UP:", s[:260])
    for s in notres: print("   ", s)
