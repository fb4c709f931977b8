<?xml version="1.0" encoding="windows-1251"?>
<ValCurs Date="25.11.2026" name="Foreign Currency Market">
<Valute ID="R01010">
<NumCode>036</NumCode>
<CharCode>AUD</CharCode>
<Nominal>1</Nominal>
<Name>Австралийский доллар</Name>
<Value>52,7404</Value>
<VunitRate>52,7404</VunitRate>
</Valute>
<Valute ID="R01235">
<NumCode>840</NumCode>
<CharCode>USD</CharCode>
<Nominal>1</Nominal>
<Name>Доллар США</Name>
<Value>81,5075</Value>
<VunitRate>81,5075</VunitRate>
</Valute>
<Valute ID="R01239">
<NumCode>978</NumCode>
<CharCode>EUR</CharCode>
<Nominal>1</Nominal>
<Name>Евро</Name>
<Value>93,8613</Value>
<VunitRate>93,8613</VunitRate>
</Valute>
<Valute ID="R01375">
<NumCode>156</NumCode>
<CharCode>CNY</CharCode>
<Nominal>10</Nominal>
<Name>Китайский юань</Name>
<Value>114,2540</Value>
<VunitRate>11,4254</VunitRate>
</Valute>
</ValCurs>
