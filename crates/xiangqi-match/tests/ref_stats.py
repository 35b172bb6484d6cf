# Independent reference: cutechess-style Elo/error/LOS and fishtest-style LLR_logistic.
import math
from statistics import NormalDist
def elo(s): return -400*math.log10(1/s-1)
def L(e): return 1/(1+10**(-e/400))
def stats(w,d,l):
    n=w+d+l; mu=(w+d/2)/n
    var=(w*(1-mu)**2+d*(0.5-mu)**2+l*mu**2)/n
    sd=math.sqrt(var/n); z=NormalDist().inv_cdf(0.975)
    err=(elo(mu+z*sd)-elo(mu-z*sd))/2
    los=0.5+0.5*math.erf((w-l)/math.sqrt(2*(w+l)))
    return elo(mu),err,los
def mle(p,a,s):
    # maximise sum p ln q subject to sum q = 1, sum q a = s: q_i = p_i/(1+x(a_i-s)); Newton on x
    x=0.0
    for _ in range(100):
        f=sum(pi*(ai-s)/(1+x*(ai-s)) for pi,ai in zip(p,a))
        df=-sum(pi*(ai-s)**2/(1+x*(ai-s))**2 for pi,ai in zip(p,a))
        x-=f/df
    return [pi/(1+x*(ai-s)) for pi,ai in zip(p,a)]
def llr(e0,e1,w,d,l):
    c=[max(1e-3,float(v)) for v in (l,d,w)]; n=sum(c); p=[v/n for v in c]; a=[0,0.5,1]
    q0=mle(p,a,L(e0)); q1=mle(p,a,L(e1))
    return n*sum(pi*math.log(b/a_) for pi,a_,b in zip(p,q0,q1))
for w,d,l in [(60,20,20),(100,300,80),(455,1020,420),(3,4,3),(30,40,20)]:
    e,err,los=stats(w,d,l)
    print(f"({w},{d},{l}) elo {e:.10f} err {err:.10f} los {los:.12f} llr(0,5) {llr(0,5,w,d,l):.10f} llr(-3,1) {llr(-3,1,w,d,l):.10f}")
print(math.log(0.05/0.95), math.log(0.95/0.05))
# Pentanomial, logistic: Newton over the five pair classes, each step halved until every
# 1 + x(a_i - s) stays positive (plain Newton can land outside, giving negative q_i).
def mle_safe(p,a,s):
    x=0.0
    for _ in range(200):
        f=sum(pi*(ai-s)/(1+x*(ai-s)) for pi,ai in zip(p,a))
        df=-sum(pi*(ai-s)**2/(1+x*(ai-s))**2 for pi,ai in zip(p,a))
        step=-f/df
        while any(1+(x+step)*(ai-s)<=0 for ai in a): step/=2
        x+=step
    return [pi/(1+x*(ai-s)) for pi,ai in zip(p,a)]
def llr5(e0,e1,c5):
    c=[max(1e-3,float(v)) for v in c5]; n=sum(c); p=[v/n for v in c]; a=[0,0.25,0.5,0.75,1]
    q0=mle_safe(p,a,L(e0)); q1=mle_safe(p,a,L(e1))
    return n*sum(pi*math.log(b/a_) for pi,a_,b in zip(p,q0,q1))
for c5 in [(352,579,1264,743,464),(1,10,78,48,13),(20,150,400,160,25)]:
    print(c5, f"llr5(0,5) {llr5(0,5,c5):.10f} llr5(-3,1) {llr5(-3,1,c5):.10f}")
