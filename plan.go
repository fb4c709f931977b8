package shlyuz

// Plan is a subscription: a price in rubles buys a package of credits for one period.
type Plan struct {
	ID             string     `json:"id" yaml:"id"`
	Name           string     `json:"name" yaml:"name"`
	PriceRubles    Decimal    `json:"price_rubles" yaml:"price_rubles"`
	PackageCredits Credits    `json:"package_credits" yaml:"package_credits"`
	Period         LimitReset `json:"period" yaml:"period"`
}

// PriceOverride replaces or adds a model's USD prices (and optionally other fields) at run time.
type PriceOverride struct {
	Model Model `json:"model"`
}
