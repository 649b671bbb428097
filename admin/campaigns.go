package admin

import (
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
)

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	campaigns, err := s.fleet.Campaigns(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, nonNil(campaigns))
	return nil
}

func (s *Server) startCampaign(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var spec forewarn.CampaignSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	campaign, err := s.fleet.StartCampaign(r.Context(), spec)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/campaigns/"+url.PathEscape(campaign.ID))
	s.writeJSON(w, http.StatusCreated, campaign)
	return nil
}

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	campaign, err := s.fleet.Campaign(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, campaign)
	return nil
}

// steerCampaign returns the handler of one campaign action: pause, resume
// or cancel.
func (s *Server) steerCampaign(action forewarn.CampaignAction) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, _ url.Values) error {
		if err := requireEmptyBody(w, r); err != nil {
			return err
		}
		campaign, err := s.fleet.SteerCampaign(r.Context(), r.PathValue("id"), action)
		if err != nil {
			return err
		}
		s.writeJSON(w, http.StatusOK, campaign)
		return nil
	}
}

// unknownCampaignAction answers a POST to a campaign action that does not
// exist.
func (s *Server) unknownCampaignAction(_ http.ResponseWriter, r *http.Request, _ url.Values) error {
	return unknownCampaignAction(forewarn.ErrNotFound, r.PathValue("action"))
}
