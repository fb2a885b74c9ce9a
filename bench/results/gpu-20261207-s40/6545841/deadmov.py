import re,sys
# flag IMAD.MOV.U32 writes to a register overwritten before any read (straight-line scan, stops at labels/branches)
lines=[l for l in open(sys.argv[1]) if re.match(r'\s*/\*[0-9a-f]{4}\*/',l) or re.match(r'\.L_x',l.strip())]
def parse(l):
    m=re.match(r'\s*/\*([0-9a-f]{4})\*/\s+(@!?P\d\s+)?(\S+)\s*(.*?)\s*;',l)
    if not m: return None
    ops=[o.strip() for o in m.group(4).split(',')] if m.group(4) else []
    return m.group(1),m.group(2),m.group(3),ops
n=0
for i,l in enumerate(lines):
    p=parse(l)
    if not p or p[2]!='IMAD.MOV.U32' or p[1]: continue
    d=p[3][0]
    for l2 in lines[i+1:i+40]:
        q=parse(l2)
        if q is None: break
        a,pr,op,ops=q
        if op.startswith('BRA') or op.startswith('BSYNC') or op.startswith('EXIT'): break
        srcs=' '.join(ops[1:]) if ops else ''
        # 64-bit source pairs: Rn used as pair base covers Rn+1
        regs=set(re.findall(r'R\d+',srcs))
        if op.startswith('F2F.F32.F64') or '.64' in op or '.128' in op or 'WIDE' in op:
            for r in list(regs): regs.add('R%d'%(int(r[1:])+1)); regs.update('R%d'%(int(r[1:])+k) for k in range(4) if '.128' in op)
        if d in regs or (ops and pr is None and ops[0]!=d and d in ' '.join(ops)): break
        if ops and ops[0]==d and not pr:
            print('dead write', p[0], l.strip()[10:60], '-> overwritten at', a, op); n+=1; break
print(sys.argv[1],'dead moves:',n)
