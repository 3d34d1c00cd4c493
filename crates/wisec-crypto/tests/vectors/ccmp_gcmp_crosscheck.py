"""Regenerates ccmp_gcmp_crosscheck.json: CCMP/GCMP expected outputs from
Python 'cryptography' (AESCCM/AESGCM) with an AAD/nonce builder written
here from IEEE Std 802.11-2020 12.5.3.3.3, 12.5.3.3.4 and 12.5.5.3.4,
independently of the Rust code. Run: python3 ccmp_gcmp_crosscheck.py"""
import json, os, struct
HERE = os.path.dirname(os.path.abspath(__file__))
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM
H=bytes.fromhex
def hdrlen(fc):
    t=(fc>>2)&3; st=(fc>>4)&15
    if t==0: return 24+(4 if fc&0x8000 else 0)
    n=24
    if fc&0x300==0x300: n+=6
    if st&8: n+=2
    if (st&8) and fc&0x8000: n+=4
    return n
def aad_nonce(f,pn):
    fc=struct.unpack('<H',f[:2])[0]; t=(fc>>2)&3; st=(fc>>4)&15
    h=hdrlen(fc)
    m=fc & ~(0x0800|0x1000|0x2000)
    qos = t==2 and st&8
    if t==2: m&=~0x0070
    if qos: m&=~0x8000
    m|=0x4000
    a=struct.pack('<H',m)+f[4:22]+bytes([f[22]&0x0f,0])
    off=24
    if t==2 and fc&0x300==0x300: a+=f[24:30]; off=30
    prio=0
    if qos: a+=bytes([f[off]&0x0f,0]); prio=f[off]&0x0f
    flags=prio|(0x10 if t==0 else 0)
    pnb=pn.to_bytes(6,'big')
    return h,a,bytes([flags])+f[10:16]+pnb, f[10:16]+pnb
def prot(suite,tk,pn,kid,f):
    h,a,n13,n12=aad_nonce(f,pn)
    hd=bytearray(f[:h]); hd[1]|=0x40
    p=pn.to_bytes(6,'little'); sh=bytes([p[0],p[1],0,0x20|(kid<<6)])+p[2:6]
    if suite=='ccmp128': c=AESCCM(tk,8).encrypt(n13,f[h:],a)
    elif suite=='ccmp256': c=AESCCM(tk,16).encrypt(n13,f[h:],a)
    else: c=AESGCM(tk).encrypt(n12,f[h:],a)
    return bytes(hd)+sh+c
d=json.load(open(os.path.join(HERE, 'ieee80211_vectors.json')))
out=[]
def add(name,suite,tk,pn,kid,f,note):
    out.append({"name":name,"suite":suite,"tk":tk.hex(),"pn":pn,"key_id":kid,"plaintext_mpdu":f.hex(),"protected_mpdu":prot(suite,tk,pn,kid,f).hex(),"source":note})
v=d['ccmp128_M92_mgmt_input']
add("M.9.2 unicast Deauthentication","ccmp128",H(v['tk']),int(v['pn_be'],16),0,H(v['plaintext_mpdu']),
    "input: ieee80211_vectors.json ccmp128_M92_mgmt_input (IEEE 802.11-2012 M.9.2); expected output computed with Python cryptography 48 AESCCM(tag_length=8), AAD/nonce per IEEE Std 802.11-2020 12.5.3.3.3/12.5.3.3.4 (management: subtype not masked, nonce Management bit set)")
v=d['gcmp128_80211ad_M111'][0]
add("802.11ad M.11.1 vector 1, AAD per 12.5.5.3.3","gcmp128",H(v['tk']),int(v['pn_be'],16),0,H(v['plaintext_mpdu']),
    "input: ieee80211_vectors.json gcmp128_80211ad_M111[0]; the published MIC was computed over the header bytes as given (Protected bit clear), which no frame-level GCMP produces, so the expected MPDU here was computed with Python cryptography 48 AESGCM with the AAD of 12.5.5.3.3 (ciphertext equals the published one)")
# Frames exercising every AAD rule (QoS, A4, HT Control, masked bits), expected from Python cryptography
tk16=bytes(range(0x10,0x20)); tk32=bytes(range(0x20,0x40))
A1=H('020000000001');A2=H('020000000002');A3=H('020000000003');A4=H('020000000004')
def hdr(fc,qc=None,htc=None,a4=False,sc=0x1234):
    b=struct.pack('<HH',fc,0x003a)+A1+A2+A3+struct.pack('<H',sc)
    if a4: b+=A4
    if qc is not None: b+=struct.pack('<H',qc)
    if htc is not None: b+=struct.pack('<I',htc)
    return b
body=bytes(range(0xa0,0xa0+45))
frames=[
 ("data ToDS, Retry+PM+MoreData set", hdr(0x0008|0x0100|0x0800|0x1000|0x2000)+body),
 ("QoS data TID 6, A-MSDU+EOSP bits set", hdr(0x0088|0x0200, qc=0x00b6)+body),
 ("QoS data 4-address, +HTC, TID 3", hdr(0x0088|0x0300|0x8000, qc=0x0023, htc=0x12345678, a4=True, sc=0x5677)+body),
 ("QoS data +CF-Ack subtype 9", hdr(0x0098|0x0100, qc=0x0005)+body),
 ("non-QoS data with Order bit", hdr(0x0008|0x0200|0x8000)+body),
 ("Action management frame +HTC", hdr(0x00d0|0x8000, htc=0xcafe0001)+H('0a0b0c')),
 ("Disassociation", hdr(0x00a0)+H('0800')),
 ("data, empty body", hdr(0x0008|0x0100)),
]
for suite,tk in [('ccmp128',tk16),('ccmp256',tk32),('gcmp128',tk16),('gcmp256',tk32)]:
    for i,(name,f) in enumerate(frames):
        add(name,suite,tk,0x0000_1234_5678+i if i%2 else 0xffff_ffff_fff0+i,i%4,f,
            "synthetic frame; expected output computed with Python cryptography 48 (AESCCM/AESGCM) and an independent Python AAD/nonce builder per IEEE Std 802.11-2020 12.5.3.3.3, 12.5.3.3.4, 12.5.5.3.4")
json.dump({"source":"cross-checks computed with Python 'cryptography' 48.0.0 (OpenSSL AES-CCM/AES-GCM); each entry names its input","vectors":out},open(os.path.join(HERE, 'ccmp_gcmp_crosscheck.json'),'w'),indent=1)
print(len(out), out[0]['protected_mpdu'])
